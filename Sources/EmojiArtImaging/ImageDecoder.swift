import CImageCodecs
import EmojiArtKit
import Foundation

/// Decodes every pixel of an image, so a file that only looks whole is refused: a truncated
/// download, a PNG whose compressed data is corrupt, a JPEG whose data stops early (libjpeg
/// would paint the rest grey), a GIF whose LZW stream breaks off, a WebP with a damaged
/// bitstream or a damaged animation frame.
///
/// The structure is read first (``ImageInfo``: the type from the bytes, the container to its
/// end, the pixel size), then the pixels, with Debian's libpng, libjpeg-turbo, libwebp and
/// giflib (the `CImageCodecs` target). Decoding never holds a full bitmap: one row of scratch
/// memory, or a WebP output scaled down by 8, so checking a 20 MB file costs little memory.
public enum ImageDecoder {
    /// The most pixels an image may have (an 8,000 × 8,000 photograph); a larger one would be
    /// costly for every browser that shows it and is refused before anything is decoded.
    public static let maximumPixels = 64_000_000

    /// The image's type and pixel size, once every pixel has been decoded; throws an
    /// `invalidBackground` error with the reason otherwise.
    public static func decode(_ data: Data) throws -> ImageInfo {
        let info = try ImageInfo(data)
        guard info.width * info.height <= maximumPixels else {
            throw failure("it has \(info.width)×\(info.height) pixels, more than \(maximumPixels)")
        }
        let decode: DecodeFunction
        switch info.mimeType {
        case "image/png": decode = image_codecs_decode_png
        case "image/jpeg": decode = image_codecs_decode_jpeg
        case "image/gif": decode = image_codecs_decode_gif
        default: decode = image_codecs_decode_webp
        }
        var width: UInt32 = 0
        var height: UInt32 = 0
        var message = [CChar](repeating: 0, count: 256)
        let status = data.withUnsafeBytes { bytes in
            decode(
                bytes.bindMemory(to: UInt8.self).baseAddress, bytes.count, UInt64(maximumPixels), &width, &height,
                &message, message.count)
        }
        guard status == 0 else {
            let reason = String(cMessage: message)
            throw failure(reason.isEmpty ? "it can't be decoded" : reason)
        }
        guard Int(width) == info.width, Int(height) == info.height else {
            throw failure("its header and its data disagree about its size")
        }
        return info
    }

    private typealias DecodeFunction = (
        UnsafePointer<UInt8>?, Int, UInt64, UnsafeMutablePointer<UInt32>?, UnsafeMutablePointer<UInt32>?,
        UnsafeMutablePointer<CChar>?, Int
    ) -> Int32

    private static func failure(_ reason: String) -> EmojiArtError {
        EmojiArtError(.invalidBackground, "the image can't be used: \(reason).")
    }
}

/// An image's pixels, for drawing: premultiplied BGRA, 4 bytes a pixel, row after row.
public struct Bitmap: Sendable {
    public var width: Int
    public var height: Int
    public var pixels: [UInt8]

    public init(width: Int, height: Int, pixels: [UInt8]) {
        precondition(pixels.count == width * height * 4, "4 bytes a pixel")
        self.width = width
        self.height = height
        self.pixels = pixels
    }
}

extension ImageDecoder {
    /// The whole picture (the first frame of an animation) as a ``Bitmap``, after the same
    /// checks as ``decode(_:)``.
    public static func bitmap(_ data: Data) throws -> Bitmap {
        _ = try decode(data)
        var width: UInt32 = 0
        var height: UInt32 = 0
        var pixels: UnsafeMutablePointer<UInt8>?
        var message = [CChar](repeating: 0, count: 256)
        let status = data.withUnsafeBytes { bytes in
            image_codecs_decode_bitmap(
                bytes.bindMemory(to: UInt8.self).baseAddress, bytes.count, UInt64(maximumPixels), &width, &height,
                &pixels, &message, message.count)
        }
        guard status == 0, let pixels else {
            let reason = String(cMessage: message)
            throw failure(reason.isEmpty ? "it can't be decoded" : reason)
        }
        defer { image_codecs_free(pixels) }
        let count = Int(width) * Int(height) * 4
        return Bitmap(
            width: Int(width), height: Int(height), pixels: Array(UnsafeBufferPointer(start: pixels, count: count)))
    }
}

extension String {
    /// The text a C function wrote into `message` (NUL-terminated UTF-8; all of it if unterminated).
    public init(cMessage message: [CChar]) {
        self = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
