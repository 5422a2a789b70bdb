import CImageCodecs
import EmojiArtKit

/// Pictures as GIF, what chat apps show inline and animate: every frame indexed against one
/// palette (``IndexedPalette``), written with Debian's giflib frame by frame, looping.
public enum GIFWriter {
    /// One picture and how long it shows.
    public struct Frame: Sendable {
        public var bitmap: Bitmap
        public var milliseconds: Int

        public init(bitmap: Bitmap, milliseconds: Int) {
            self.bitmap = bitmap
            self.milliseconds = milliseconds
        }
    }

    /// The most frames the palette is chosen from when frames are drawn one at a time: evenly
    /// spread, the last among them (a replay's colours are mostly those of its end).
    public static let paletteFrames = 12

    /// The GIF of `frames` (one: a still picture), played `loops` times (0: for ever).
    ///
    /// - Throws: if there is no frame or the frames differ in size.
    public static func write(_ frames: [Frame], loops: Int = 0) throws -> [UInt8] {
        try write(frameCount: frames.count, loops: loops, paletteFrom: Array(frames.indices)) { frames[$0] }
    }

    /// The GIF of `frameCount` frames that `frame` draws one at a time, so only one is held:
    /// those `paletteFrom` names (by default ``paletteFrames`` spread evenly) are drawn first to
    /// choose the palette, then every frame is drawn again and written.
    public static func write(
        frameCount: Int, loops: Int = 0, paletteFrom chosen: [Int]? = nil, frame: (Int) throws -> Frame
    ) throws -> [UInt8] {
        guard frameCount > 0 else { throw EmojiArtError(.invalidFile, "a GIF needs a picture.") }
        // The sampled frames are let go once the palette is chosen.
        var (palette, size) = try { () throws -> (IndexedPalette, (width: Int, height: Int)) in
            let sampled = try (chosen ?? Self.sample(frameCount)).map { try frame($0).bitmap }
            guard let first = sampled.first else { throw EmojiArtError(.invalidFile, "a GIF needs a picture.") }
            return (IndexedPalette(for: sampled), (first.width, first.height))
        }()
        var message = [CChar](repeating: 0, count: 256)
        let writer = palette.rgb.withUnsafeBufferPointer { rgb in
            image_codecs_gif_begin(
                Int32(size.width), Int32(size.height), rgb.baseAddress, Int32(palette.count), frameCount > 1 ? 1 : 0,
                Int32(loops), &message, message.count)
        }
        guard let writer else { throw failure(message) }
        var finished = false
        defer { if !finished { image_codecs_gif_abandon(writer) } }
        for index in 0..<frameCount {
            let drawn = try frame(index)
            guard drawn.bitmap.width == size.width, drawn.bitmap.height == size.height else {
                throw EmojiArtError(.invalidFile, "a GIF's pictures must be one size.")
            }
            // GIF delays are in hundredths of a second; browsers treat under 2 as 10, so 2 is the least.
            let delay = Int32(min(max((drawn.milliseconds + 5) / 10, 2), 65_535))
            let status = palette.indices(of: drawn.bitmap).withUnsafeBufferPointer {
                image_codecs_gif_frame(writer, $0.baseAddress, delay, &message, message.count)
            }
            guard status == 0 else { throw failure(message) }
        }
        var output: UnsafeMutablePointer<UInt8>?
        var count = 0
        finished = true
        guard image_codecs_gif_end(writer, &output, &count, &message, message.count) == 0, let output else {
            throw failure(message)
        }
        defer { image_codecs_free(output) }
        return Array(UnsafeBufferPointer(start: output, count: count))
    }

    /// Up to ``paletteFrames`` frame indices spread evenly over `count`, the last included.
    static func sample(_ count: Int) -> [Int] {
        guard count > paletteFrames else { return Array(0..<count) }
        return (0..<paletteFrames).map { $0 * (count - 1) / (paletteFrames - 1) }
    }

    private static func failure(_ message: [CChar]) -> EmojiArtError {
        EmojiArtError(.invalidFile, "the GIF could not be written: \(String(cMessage: message)).")
    }
}
