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
        var png: UnsafeMutablePointer<UInt8>?
        var pngSize = 0
        let (width, height, scale) = try draw(document, background: background, scale: requested, frame: frame) {
            emoji_render_png(
                $0.width, $0.height, $0.background, $0.backgroundWidth, $0.backgroundHeight, $0.backgroundX,
                $0.backgroundY, $0.scale, $0.items, $0.itemCount, &png, &pngSize, $0.message, $0.messageSize)
        }
        guard let png else { throw EmojiArtError(.invalidFile, "the picture could not be drawn.") }
        defer { emoji_render_free(png) }
        let bytes = Array(UnsafeBufferPointer(start: png, count: pngSize))
        return Picture(
            png: embedsDocument ? PictureDocument.embed(document, in: bytes) : bytes, width: width, height: height,
            scale: scale)
    }

    /// The same picture as ``render(_:background:scale:embedsDocument:frame:)``, as pixels: for
    /// pictures encoded another way (GIF).
    public static func bitmap(
        _ document: EmojiArtDocument, background: Bitmap?, scale requested: Double = 1, frame: PictureFrame? = nil
    ) throws -> Bitmap {
        var pixels: UnsafeMutablePointer<UInt8>?
        let (width, height, _) = try draw(document, background: background, scale: requested, frame: frame) {
            emoji_render_bitmap(
                $0.width, $0.height, $0.background, $0.backgroundWidth, $0.backgroundHeight, $0.backgroundX,
                $0.backgroundY, $0.scale, $0.items, $0.itemCount, &pixels, $0.message, $0.messageSize)
        }
        guard let pixels else { throw EmojiArtError(.invalidFile, "the picture could not be drawn.") }
        defer { emoji_render_free(pixels) }
        return Bitmap(
            width: width, height: height, pixels: Array(UnsafeBufferPointer(start: pixels, count: width * height * 4)))
    }

    /// What the C renderer is given.
    struct Drawing {
        var width: Int32
        var height: Int32
        var background: UnsafePointer<UInt8>?
        var backgroundWidth: Int32
        var backgroundHeight: Int32
        var backgroundX: Double
        var backgroundY: Double
        var scale: Double
        var items: UnsafePointer<emoji_render_item>?
        var itemCount: Int
        var message: UnsafeMutablePointer<CChar>
        var messageSize: Int
    }

    /// Lays the document out for the C renderer and calls `output` with it; the picture's size and scale.
    private static func draw(
        _ document: EmojiArtDocument, background: Bitmap?, scale requested: Double, frame: PictureFrame?,
        output: (Drawing) -> Int32
    ) throws -> (width: Int, height: Int, scale: Double) {
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
        let message = UnsafeMutablePointer<CChar>.allocate(capacity: 256)
        message.initialize(repeating: 0, count: 256)
        defer { message.deallocate() }
        func drawing(_ items: UnsafeBufferPointer<emoji_render_item>, _ pixels: UnsafePointer<UInt8>?) -> Drawing {
            Drawing(
                width: Int32(width), height: Int32(height), background: pixels,
                backgroundWidth: Int32(background?.width ?? 0), backgroundHeight: Int32(background?.height ?? 0),
                backgroundX: (-Double(background?.width ?? 0) / 2 - frame.minX) * scale,
                backgroundY: (-Double(background?.height ?? 0) / 2 - frame.minY) * scale, scale: scale,
                items: items.baseAddress, itemCount: items.count, message: message, messageSize: 256)
        }
        let status: Int32 = items.withUnsafeBufferPointer { items in
            guard let background else { return output(drawing(items, nil)) }
            return background.pixels.withUnsafeBufferPointer { output(drawing(items, $0.baseAddress)) }
        }
        guard status == 0 else {
            throw EmojiArtError(.invalidFile, "the picture could not be drawn: \(String(cString: message)).")
        }
        return (width, height, scale)
    }
}
