import EmojiArtKit
import Foundation
import Testing

@Suite("Image files are read to the end: type, pixel size, and truncation refused")
struct ImageInfoTests {
    static let images: [(String, String, Int, Int)] = [
        ("red-7x5.png", "image/png", 7, 5),
        ("red-7x5.jpg", "image/jpeg", 7, 5),
        ("red-7x5-progressive.jpg", "image/jpeg", 7, 5),
        ("red-7x5.gif", "image/gif", 7, 5),
        ("anim-4x6.gif", "image/gif", 4, 6),
        ("red-7x5-lossy.webp", "image/webp", 7, 5),
        ("red-7x5-lossless.webp", "image/webp", 7, 5),
        ("green-9x3-alpha.webp", "image/webp", 9, 3),
    ]

    @Test(arguments: images)
    func readsTypeAndSize(name: String, mimeType: String, width: Int, height: Int) throws {
        let info = try ImageInfo(Data(try fixture("images/\(name)")))
        #expect(info.mimeType == mimeType)
        #expect(info.width == width)
        #expect(info.height == height)
    }

    @Test(arguments: images.map(\.0))
    func everyTruncationIsRefused(name: String) throws {
        let bytes = try fixture("images/\(name)")
        for length in 0..<bytes.count {
            #expect(throws: EmojiArtError.self, "\(name) cut to \(length) bytes") {
                try ImageInfo(Data(bytes.prefix(length)))
            }
        }
    }

    @Test func aCorruptedPNGChunkIsRefused() throws {
        var bytes = try fixture("images/red-7x5.png")
        bytes[bytes.count - 20] ^= 0x01
        let error = #expect(throws: EmojiArtError.self) { try ImageInfo(Data(bytes)) }
        #expect(error?.message.contains("corrupted") == true)
    }

    @Test func theOriginalAppsTruncatedJPEGIsRefused() throws {
        let decoded = try EmojiArtFile.read(try fixture("2021-imagedata-truncated-jpeg.emojiart"))
        guard case .image(let data, _) = decoded.document.background else {
            Issue.record("the fixture has embedded image data")
            return
        }
        let error = #expect(throws: EmojiArtError.self) { try ImageInfo(data) }
        #expect(error?.message.contains("truncated") == true)
    }

    @Test func hugeOrEmptyDimensionsAreRefused() throws {
        var bytes = try fixture("images/red-7x5.gif")
        bytes[6] = 0
        bytes[7] = 0
        #expect(throws: EmojiArtError.self) { try ImageInfo(Data(bytes)) }
        #expect(throws: EmojiArtError.self) { try ImageInfo(Data("<svg/>".utf8)) }
    }
}
