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
            abstract: "Draw a document as an SVG or PNG picture.",
            discussion: """
                The type comes from the output's extension. The picture fits the background image \
                (centred at the origin) and every emoji, with a small margin. A PNG is drawn with \
                pango and cairo in colour emoji and carries the document: `emojiart convert \
                picture.png doc.emojiart --to native` (or importing it in the web editor) opens it again. A URL \
                background is fetched like the server does (public addresses only, unless \
                $EMOJIART_FETCH_ALLOW says otherwise); with --no-fetch it is left out.
                """)

        @Argument(help: "The document (any .emojiart format, or a PNG exported by EmojiArt).")
        var file: String

        @Option(name: .shortAndLong, help: "The picture to write: a .svg or .png file.")
        var output: String

        @Option(help: "Pixels per point for a PNG: 1, 2 or 3.")
        var scale: Int = 1

        @Flag(help: "In an SVG, link a URL background instead of embedding its bytes.")
        var linkBackground = false

        @Flag(help: "Don't fetch a URL background; leave it out of the picture.")
        var noFetch = false

        enum Kind { case svg, png }

        var kind: Kind? {
            switch URL(fileURLWithPath: output).pathExtension.lowercased() {
            case "svg": .svg
            case "png": .png
            default: nil
            }
        }

        func validate() throws {
            guard kind != nil else { throw ValidationError("The output must end in .svg or .png.") }
            guard (1...3).contains(scale) else { throw ValidationError("--scale must be 1, 2 or 3.") }
        }

        func run() async throws {
            let document = try DocumentFile.read(file).document
            let image = try await backgroundImage(of: document)
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

        /// The background's bytes and facts: embedded, or fetched from its URL (nil if none or
        /// not fetched, with a warning saying why).
        private func backgroundImage(of document: EmojiArtDocument) async throws -> (data: Data, info: ImageInfo)? {
            switch document.background {
            case .none:
                return nil
            case .image(let data, _):
                do {
                    return (data, try ImageDecoder.decode(data))
                } catch {
                    warn("note: the embedded background image is left out: \(error)")
                    return nil
                }
            case .url(let url):
                guard !noFetch else {
                    warn("note: the background at \(url.absoluteString) is left out (--no-fetch).")
                    return nil
                }
                let configuration = try ServerConfiguration.fromProcessEnvironment(only: [
                    "EMOJIART_FETCH_ALLOW", "EMOJIART_FETCH_PUBLIC",
                ])
                let fetcher = ImageFetcher(policy: configuration.fetchPolicy, limits: configuration.fetchLimits)
                do {
                    let fetched = try await fetcher.fetch(url)
                    return (fetched.data, try ImageDecoder.decode(fetched.data))
                } catch {
                    warn("note: the background at \(url.absoluteString) is left out: \(error)")
                    return nil
                }
            }
        }
    }
}
