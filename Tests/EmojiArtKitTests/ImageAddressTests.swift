import EmojiArtKit
import Foundation
import Testing

@Suite("Image-search links unwrap to the image's own address")
struct ImageAddressTests {
    static let cases: [(String, String)] = [
        (
            "https://www.google.com/imgres?imgurl=https%3A%2F%2Fupload.wikimedia.org%2Fcat.png&imgrefurl=https%3A%2F%2Fexample.com%2Fpage&tbnid=x",
            "https://upload.wikimedia.org/cat.png"
        ),
        ("https://www.google.com/imgres?tbnid=x&imgurl=http://example.org/a.jpg", "http://example.org/a.jpg"),
        (
            "https://www.bing.com/images/search?view=detailV2&mediaurl=https%3A%2F%2Fexample.org%2Fb.gif",
            "https://example.org/b.gif"
        ),
        (
            "https://duckduckgo.com/?q=cat&iax=images&iai=https%3A%2F%2Fexample.org%2Fc.webp",
            "https://example.org/c.webp"
        ),
        ("https://example.com/cat.png", "https://example.com/cat.png"),
        ("https://example.com/cat.png?size=large&v=2", "https://example.com/cat.png?size=large&v=2"),
        (
            "https://example.com/redirect?to=ftp://example.org/x.png",
            "https://example.com/redirect?to=ftp://example.org/x.png"
        ),
        ("https://example.com/r?u=javascript:alert(1)", "https://example.com/r?u=javascript:alert(1)"),
        (
            "https://l.example.com/?u=https%3A%2F%2Fwww.google.com%2Fimgres%3Fimgurl%3Dhttps%253A%252F%252Fx.org%252Fd.png",
            "https://x.org/d.png"
        ),
    ]

    @Test(arguments: cases)
    func unwraps(link: String, expected: String) throws {
        let url = try #require(URL(string: link))
        #expect(ImageAddress.unwrapped(url).absoluteString == expected)
    }
}
