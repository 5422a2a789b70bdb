import CEmojiRender
import EmojiArtImaging
import EmojiArtKit
import Foundation

/// A document as a PNG, drawn in process with pango and cairo: colour emoji shaped by HarfBuzz
/// (ZWJ families, flags, skin tones) in the system's emoji font, over the background image. The
/// PNG carries the document itself (``PictureDocument``), so it opens again as the document.
public enum PNGRenderer {
    /// The largest picture drawn, in pixels a side and in all; bigger ones are scaled to fit.
    public static let maximumSide = 8_192
    public static let maximumPixels = 16_000_000

    public struct Picture: Sendable {
        public var png: [UInt8]
        public var width: Int
        public var height: Int
        /// The scale used: the one asked for, or less if the picture had to fit the limits.
        public var scale: Double
    }

    /// Renders `document` at `scale` pixels per point over `background` (its decoded image);
    /// with `embedsDocument` (the default) the PNG carries the document. `frame` is the part of
    /// the plane drawn (by default the document's own, ``PictureFrame/init(document:backgroundSize:)``):
    /// the frames of a replay share one.
    public static func render(
        _ document: EmojiArtDocument, background: Bitmap?, scale requested: Double = 1, embedsDocument: Bool = true,
        frame: PictureFrame? = nil
    ) throws -> Picture {
        let frame =
            frame ?? PictureFrame(document: document, backgroundSize: background.map { ($0.width, $0.height) })
        var scale = requested
        scale = min(scale, Double(maximumSide) / max(frame.width, frame.height))
        scale = min(scale, (Double(maximumPixels) / (frame.width * frame.height)).squareRoot())
        let width = max(1, Int((frame.width * scale).rounded()))
        let height = max(1, Int((frame.height * scale).rounded()))

        let texts = document.emojis.map { strdup($0.text) }
        defer { for text in texts { free(text) } }
        var items: [emoji_render_item] = []
        items.reserveCapacity(texts.count)
        for (emoji, text) in zip(document.emojis, texts) {
            items.append(
                emoji_render_item(
                    text: UnsafePointer(text), x: (Double(emoji.position.x) - frame.minX) * scale,
                    y: (-Double(emoji.position.y) - frame.minY) * scale, size: Double(emoji.size) * scale,
                    rotation: Double(emoji.rotation)))
        }
        var png: UnsafeMutablePointer<UInt8>?
        var pngSize = 0
        var message = [CChar](repeating: 0, count: 256)
        let status: Int32 = items.withUnsafeBufferPointer { items in
            let draw = { (pixels: UnsafePointer<UInt8>?) -> Int32 in
                emoji_render_png(
                    Int32(width), Int32(height), pixels, Int32(background?.width ?? 0),
                    Int32(background?.height ?? 0),
                    (-Double(background?.width ?? 0) / 2 - frame.minX) * scale,
                    (-Double(background?.height ?? 0) / 2 - frame.minY) * scale, scale, items.baseAddress, items.count,
                    &png, &pngSize, &message, message.count)
            }
            guard let background else { return draw(nil) }
            return background.pixels.withUnsafeBufferPointer { draw($0.baseAddress) }
        }
        guard status == 0, let png else {
            let reason = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw EmojiArtError(.invalidFile, "the picture could not be drawn: \(reason).")
        }
        defer { emoji_render_free(png) }
        let bytes = Array(UnsafeBufferPointer(start: png, count: pngSize))
        return Picture(
            png: embedsDocument ? PictureDocument.embed(document, in: bytes) : bytes, width: width, height: height,
            scale: scale)
    }
}
