import EmojiArtImaging
import EmojiArtKit
import EmojiArtRender
import Foundation
import Testing

#if canImport(FoundationXML)
    import FoundationXML
#endif

let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Fixtures")

/// Documents drawn for the golden pictures: a ZWJ family, a flag, a skin tone, over a background.
func goldenDocument(_ name: String) throws -> EmojiArtDocument {
    var document = try EmojiArtDocument(title: "Golden \(name)")
    let emojis: [(String, Int, Int, Int)] =
        switch name {
        case "family": [("👨‍👩‍👧‍👦", 0, 0, 96), ("👩🏾‍💻", 90, -20, 48)]
        case "flags": [("🇯🇵", -50, 0, 64), ("🇧🇷", 30, 10, 48), ("🏳️‍🌈", 0, -60, 40)]
        default: [("👋🏽", -40, 0, 64), ("👍🏿", 40, 0, 64), ("🦊", 0, 50, 32)]
        }
    for (text, x, y, size) in emojis {
        _ = try document.apply(.addEmoji(text: text, position: Point(x: x, y: y), size: size))
    }
    if name == "tones" {
        let image = try Data(contentsOf: fixtures.appendingPathComponent("images/noise-64x48.png"))
        _ = try document.apply(.setBackground(.image(data: image, mimeType: "image/png")))
    }
    return document
}

@Suite("Pictures of documents")
struct RenderTests {
    @Test(arguments: ["family", "flags", "tones"])
    func pngMatchesItsGoldenPicture(name: String) throws {
        let document = try goldenDocument(name)
        var bitmap: Bitmap?
        if case .image(let data, _) = document.background { bitmap = try ImageDecoder.bitmap(data) }
        let picture = try PNGRenderer.render(document, background: bitmap, scale: 2)
        let golden = fixtures.appendingPathComponent("golden/\(name)@2x.png")
        if ProcessInfo.processInfo.environment["EMOJIART_UPDATE_GOLDENS"] != nil {
            try Data(picture.png).write(to: golden)
        }
        let expected = try ImageDecoder.bitmap(try Data(contentsOf: golden))
        let actual = try ImageDecoder.bitmap(Data(picture.png))
        #expect(actual.width == expected.width && actual.height == expected.height)
        guard actual.pixels.count == expected.pixels.count else { return }
        // A tolerance for font and library versions: the mean difference per channel, and the
        // share of pixels that differ visibly.
        var total = 0
        var differing = 0
        for pixel in stride(from: 0, to: actual.pixels.count, by: 4) {
            var pixelDifference = 0
            for channel in 0..<4 {
                pixelDifference = max(
                    pixelDifference, abs(Int(actual.pixels[pixel + channel]) - Int(expected.pixels[pixel + channel])))
            }
            total += pixelDifference
            if pixelDifference > 48 { differing += 1 }
        }
        let pixels = actual.pixels.count / 4
        #expect(Double(total) / Double(pixels) < 4, "mean difference \(Double(total) / Double(pixels))")
        #expect(Double(differing) / Double(pixels) < 0.02, "\(differing) of \(pixels) pixels differ")
    }

    @Test func colourEmojiAreDrawnInColour() throws {
        // rsvg-convert and fonts without colour glyphs draw emoji in black: check for colour.
        let document = try goldenDocument("tones")
        let picture = try PNGRenderer.render(document, background: nil, scale: 1)
        let bitmap = try ImageDecoder.bitmap(Data(picture.png))
        var colourful = 0
        for pixel in stride(from: 0, to: bitmap.pixels.count, by: 4) {
            let b = Int(bitmap.pixels[pixel])
            let g = Int(bitmap.pixels[pixel + 1])
            let r = Int(bitmap.pixels[pixel + 2])
            if max(r, g, b) - min(r, g, b) > 60 { colourful += 1 }
        }
        #expect(colourful > bitmap.width * bitmap.height / 20, "only \(colourful) colourful pixels")
    }

    @Test func aPNGOpensAgainAsItsDocument() throws {
        let document = try goldenDocument("tones")
        let picture = try PNGRenderer.render(document, background: nil, scale: 3)
        #expect(picture.width == Int((PictureFrame(document: document, backgroundSize: nil).width * 3).rounded()))
        let decoded = try EmojiArtFile.read(picture.png)
        #expect(decoded.document == document && decoded.isPicture && decoded.format == .native)
        // Still a valid PNG for every decoder (the added chunk has its CRC).
        #expect(try ImageDecoder.decode(Data(picture.png)).mimeType == "image/png")

        let plain = try Data(contentsOf: fixtures.appendingPathComponent("images/noise-64x48.png"))
        #expect(throws: EmojiArtError.self) { try EmojiArtFile.read(Array(plain)) }
    }

    /// A bar (➖) drawn upright is wide; turned 90° it is tall — in the PNG and in the SVG.
    @Test func picturesDrawRotation() throws {
        func inkBox(rotation: Int) throws -> (width: Int, height: Int) {
            var document = try EmojiArtDocument(title: "Bar")
            try document.apply(.addEmoji(text: "➖", position: .zero, size: 100))
            if rotation != 0 { try document.apply(.rotate(ids: [1], degrees: rotation)) }
            let bitmap = try ImageDecoder.bitmap(Data(try PNGRenderer.render(document, background: nil, scale: 1).png))
            var (left, right, top, bottom) = (Int.max, Int.min, Int.max, Int.min)
            for y in 0..<bitmap.height {
                for x in 0..<bitmap.width {
                    let pixel = (y * bitmap.width + x) * 4
                    if bitmap.pixels[pixel..<pixel + 3].contains(where: { $0 < 160 }) {
                        (left, right, top, bottom) = (min(left, x), max(right, x), min(top, y), max(bottom, y))
                    }
                }
            }
            return (right - left, bottom - top)
        }
        let upright = try inkBox(rotation: 0)
        let turned = try inkBox(rotation: 90)
        #expect(upright.width > 2 * upright.height, "\(upright)")
        #expect(turned.height > 2 * turned.width, "\(turned)")

        var document = try EmojiArtDocument(title: "Turned")
        try document.apply(.addEmoji(text: "➖", position: Point(x: 10, y: 20), size: 40))
        try document.apply(.rotate(ids: [1], degrees: 45))
        #expect(SVGRenderer.render(document, background: .none).contains(#"transform="rotate(45 10 -20)""#))
    }

    @Test func hugeDocumentsAreScaledToFit() throws {
        var document = try EmojiArtDocument(title: "Far apart")
        _ = try document.apply(.addEmoji(text: "🚀", position: Point(x: -900_000, y: 0), size: 40))
        _ = try document.apply(.addEmoji(text: "🌕", position: Point(x: 900_000, y: 0), size: 40))
        let picture = try PNGRenderer.render(document, background: nil, scale: 2)
        #expect(picture.width <= PNGRenderer.maximumSide && picture.scale < 0.01)
    }

    @Test func svgIsValidXMLWithEveryTextEscapedAndAViewBoxThatFits() throws {
        var document = try EmojiArtDocument(title: #"<script>alert("&")</script>"#)
        _ = try document.apply(.addEmoji(text: "👨‍👩‍👧‍👦", position: Point(x: -100, y: 50), size: 80))
        _ = try document.apply(.addEmoji(text: "🇯🇵", position: Point(x: 200, y: -30), size: 40))
        let image = try Data(contentsOf: fixtures.appendingPathComponent("images/noise-64x48.png"))
        let svg = SVGRenderer.render(
            document, background: .embedded(data: image, mimeType: "image/png", width: 64, height: 48))
        let parsed = try SVGShape(svg)
        #expect(parsed.title == #"<script>alert("&")</script>"#)
        #expect(parsed.texts == ["👨‍👩‍👧‍👦", "🇯🇵"])
        #expect(!svg.contains("<script>"))
        // x from the family (−140) to the flag (220), y from the family (−90) to the flag (50), ± 16.
        #expect(parsed.viewBox == [-156, -106, 392, 172])
        #expect(parsed.imageHref?.hasPrefix("data:image/png;base64,iVBOR") == true)

        let linked = SVGRenderer.render(
            document,
            background: .linked(url: URL(string: "https://example.com/a.png?x=1&y=2")!, width: 640, height: 480))
        #expect(try SVGShape(linked).imageHref == "https://example.com/a.png?x=1&y=2")
    }
}

/// What an XML parser finds in an SVG: it must parse at all, and these must be right.
struct SVGShape {
    var title = ""
    var texts: [String] = []
    var viewBox: [Double] = []
    var imageHref: String?

    init(_ svg: String) throws {
        let parser = XMLParser(data: Data(svg.utf8))
        let delegate = Delegate()
        parser.delegate = delegate
        guard parser.parse() else {
            throw EmojiArtError(.invalidFile, "not XML: \(parser.parserError.map { "\($0)" } ?? "?")")
        }
        title = delegate.title
        texts = delegate.texts
        viewBox = delegate.viewBox
        imageHref = delegate.imageHref
    }

    final class Delegate: NSObject, XMLParserDelegate {
        var title = ""
        var texts: [String] = []
        var viewBox: [Double] = []
        var imageHref: String?
        var current: String?
        var text = ""

        func parser(
            _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
            attributes: [String: String] = [:]
        ) {
            current = name
            text = ""
            if name == "svg" { viewBox = (attributes["viewBox"] ?? "").split(separator: " ").compactMap { Double($0) } }
            if name == "image" { imageHref = attributes["href"] }
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) { text += string }

        func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
            if name == "title" { title = text }
            if name == "text" { texts.append(text) }
            current = nil
        }
    }
}
