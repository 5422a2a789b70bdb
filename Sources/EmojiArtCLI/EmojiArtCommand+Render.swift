import ArgumentParser
import EmojiArtFetch
import EmojiArtImaging
import EmojiArtKit
import EmojiArtRender
import EmojiArtServer
import Foundation

extension EmojiArtCommand {
    struct Render: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Draw a document as an SVG or PNG picture, or as rows of emoji text.",
            discussion: """
                The type comes from --to, else the output's extension (.svg, .png, .txt). Text \
                (`--to text`) is the document as rows of emojis on a grid for pasting into chat, \
                empty cells as U+3000 (or ⬜ with --filler square), printed when there is no -o; \
                the web editor lays it out again as a grid when it is pasted. The picture fits the background image \
                (centred at the origin) and every emoji, with a small margin. A PNG is drawn with \
                pango and cairo in colour emoji and carries the document: `emojiart convert \
                picture.png doc.emojiart --to native` (or importing it in the web editor) opens it again. A URL \
                background is fetched like the server does (public addresses only, unless \
                $EMOJIART_FETCH_ALLOW says otherwise); with --no-fetch it is left out.
                """)

        @Argument(help: "The document (any .emojiart format, or a PNG exported by EmojiArt).")
        var file: String

        @Option(name: .shortAndLong, help: "The picture to write: a .svg, .png or .txt file.")
        var output: String?

        @Option(help: "What to draw: svg, png or text (default: from the output's extension).")
        var to: String?

        @Option(help: "For text: at most this many columns (a wider document is written on a coarser grid).")
        var columns: Int?

        @Option(help: "For text: what empty cells are, ideographic (U+3000) or square (⬜).")
        var filler: String = EmojiTextGrid.Filler.ideographic.rawValue

        @Option(help: "Pixels per point for a PNG: 1, 2 or 3.")
        var scale: Int = 1

        @Flag(help: "In an SVG, link a URL background instead of embedding its bytes.")
        var linkBackground = false

        @Flag(help: "Don't fetch a URL background; leave it out of the picture.")
        var noFetch = false

        enum Kind: String { case svg, png, text }

        var kind: Kind? {
            if let to { return Kind(rawValue: to) }
            switch output.map({ URL(fileURLWithPath: $0).pathExtension.lowercased() }) {
            case "svg": return .svg
            case "png": return .png
            case "txt": return .text
            default: return nil
            }
        }

        func validate() throws {
            if let to, Kind(rawValue: to) == nil { throw ValidationError("--to is svg, png or text.") }
            guard kind != nil else {
                throw ValidationError("Give --to svg|png|text, or an output ending in .svg, .png or .txt.")
            }
            guard output != nil || kind == .text else { throw ValidationError("Name the picture to write: -o FILE.") }
            guard EmojiTextGrid.Filler(rawValue: filler) != nil else {
                throw ValidationError("--filler is ideographic or square.")
            }
            if let columns, !(1...EmojiTextGrid.maximumColumns).contains(columns) {
                throw ValidationError("--columns is 1 to \(EmojiTextGrid.maximumColumns).")
            }
            guard (1...3).contains(scale) else { throw ValidationError("--scale must be 1, 2 or 3.") }
        }

        func run() async throws {
            let document = try DocumentFile.read(file).document
            if kind == .text {
                let text = EmojiTextGrid(Array(document.emojis), columns: columns).text(
                    filler: EmojiTextGrid.Filler(rawValue: filler) ?? .ideographic)
                guard let output else {
                    if !text.isEmpty { say(String(text.dropLast())) }
                    return
                }
                try DocumentFile.writeAtomically(Data(text.utf8), to: output)
                say(
                    "Wrote \(output) (text, \(text.split(separator: "\n", omittingEmptySubsequences: false).count - 1) rows)."
                )
                return
            }
            guard let output else { return }
            let image = try await BackgroundImage.load(of: document, fetching: !noFetch)
            switch kind {
            case .svg:
                let background: SVGRenderer.BackgroundImage
                switch (document.background, image) {
                case (.url(let url), let image?) where linkBackground:
                    background = .linked(url: url, width: image.info.width, height: image.info.height)
                case (_, let image?):
                    background = .embedded(
                        data: image.data, mimeType: image.info.mimeType, width: image.info.width,
                        height: image.info.height)
                default:
                    background = .none
                }
                try DocumentFile.writeAtomically(
                    Data(SVGRenderer.render(document, background: background).utf8), to: output)
                say(
                    "Wrote \(output) (SVG, \(document.emojis.count) \(document.emojis.count == 1 ? "emoji" : "emojis"))."
                )
            default:
                let bitmap = try image.map { try ImageDecoder.bitmap($0.data) }
                let picture = try PNGRenderer.render(document, background: bitmap, scale: Double(scale))
                try DocumentFile.writeAtomically(Data(picture.png), to: output)
                let scaled =
                    picture.scale < Double(scale) ? ", scaled to \(String(format: "%.3g", picture.scale))× to fit" : ""
                say("Wrote \(output) (PNG, \(picture.width)×\(picture.height) pixels\(scaled)).")
            }
        }
    }
}
