import EmojiArtKit
import EmojiArtRender
import Foundation

/// Pictures of a 5,000-emoji document (varied emojis, ZWJ sequences and flags among them,
/// spread over 10,000 × 10,000 points): SVG, and PNG drawn with pango + cairo.
enum RenderBenchmarks {
    static func run(smoke: Bool, into report: inout Report) throws {
        let count = smoke ? 100 : 5_000
        let document = try generatedDocument(count: count)
        let repetitions = smoke ? 1 : 5
        var svgBytes = 0
        let svg = medianSeconds(repetitions: repetitions) {
            svgBytes = SVGRenderer.render(document, background: .none).utf8.count
        }
        report.add("SVG of a \(count)-emoji document", "\(format(svg * 1000)) ms (\(svgBytes / 1024) KiB)")
        // A more compact document too: the same emojis within 2,000 × 2,000 points.
        var compact = document
        compact = try EmojiArtDocument(
            title: "Compact", background: .none,
            emojis: document.emojis.map { emoji in
                var emoji = emoji
                emoji.position = Point(x: emoji.position.x / 5, y: emoji.position.y / 5)
                return emoji
            }, nextEmojiID: document.nextEmojiID)
        let subjects =
            smoke ? [("2,000 pt wide", compact)] : [("10,000 pt wide", document), ("2,000 pt wide", compact)]
        for (name, subject) in subjects {
            var picture: PNGRenderer.Picture?
            let seconds = try medianSeconds(repetitions: repetitions) {
                picture = try PNGRenderer.render(subject, background: nil, scale: 1)
            }
            let size = picture.map { "\($0.width)×\($0.height) px, \($0.png.count / 1024) KiB" } ?? ""
            report.add(
                "PNG of a \(count)-emoji document, \(name)", "\(format(seconds * 1000, 0)) ms (\(size))",
                target: name.hasPrefix("2,000") ? "measured (issue #7)" : "")
        }
        // A document-browser thumbnail of the spread-out document (240 pixels a side).
        let frame = PictureFrame(document: document, backgroundSize: nil)
        let thumbnail = try medianSeconds(repetitions: repetitions) {
            _ = try PNGRenderer.render(
                document, background: nil, scale: 240 / max(frame.width, frame.height), embedsDocument: false)
        }
        report.add("thumbnail (240 px) of a \(count)-emoji document", "\(format(thumbnail * 1000, 0)) ms")
    }
}
