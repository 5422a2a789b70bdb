import Foundation

/// What an image file is, read from its structure: its type and pixel size.
///
/// This reads every container structure (PNG chunks with their CRCs up to IEND, JPEG markers up
/// to the end-of-image marker, GIF blocks up to the trailer, the WebP RIFF length), so a
/// truncated or corrupted file is refused, without decompressing pixels.
public struct ImageInfo: Equatable, Sendable {
    public var mimeType: String
    public var width: Int
    public var height: Int

    /// Largest width or height accepted (a 16,384-pixel side is already a 1 GiB bitmap).
    public static let maximumSide = 16_384

    /// Reads an image's structure; throws with the reason it is not a usable image.
    public init(_ data: Data) throws {
        let bytes = [UInt8](data)
        guard let mimeType = ImageSignature.mimeType(of: data) else {
            throw ImageInfo.failure("it is not a PNG, JPEG, GIF or WebP image")
        }
        let size: (width: Int, height: Int)
        switch mimeType {
        case "image/png": size = try ImageInfo.png(bytes)
        case "image/jpeg": size = try ImageInfo.jpeg(bytes)
        case "image/gif": size = try ImageInfo.gif(bytes)
        default: size = try ImageInfo.webp(bytes)
        }
        guard (1...ImageInfo.maximumSide).contains(size.width), (1...ImageInfo.maximumSide).contains(size.height) else {
            throw ImageInfo.failure(
                "its size \(size.width)×\(size.height) is outside 1…\(ImageInfo.maximumSide) pixels")
        }
        self.mimeType = mimeType
        self.width = size.width
        self.height = size.height
    }

    static func failure(_ reason: String) -> EmojiArtError {
        EmojiArtError(.invalidBackground, "the image can't be used: \(reason).")
    }

    private static func bigEndian(_ bytes: [UInt8], _ offset: Int, _ count: Int) -> Int {
        (offset..<offset + count).reduce(0) { $0 << 8 | Int(bytes[$1]) }
    }

    private static func littleEndian(_ bytes: [UInt8], _ offset: Int, _ count: Int) -> Int {
        (offset..<offset + count).reversed().reduce(0) { $0 << 8 | Int(bytes[$1]) }
    }

    /// Chunks (length, type, data, CRC) from the signature to IEND, each CRC checked.
    private static func png(_ bytes: [UInt8]) throws -> (Int, Int) {
        var offset = 8
        var size: (Int, Int)?
        while true {
            guard offset + 12 <= bytes.count else { throw failure("the PNG file is truncated") }
            let length = bigEndian(bytes, offset, 4)
            let typeStart = offset + 4
            guard length <= bytes.count - typeStart - 8 else { throw failure("the PNG file is truncated") }
            let type = String(decoding: bytes[typeStart..<typeStart + 4], as: UTF8.self)
            let crc = bigEndian(bytes, typeStart + 4 + length, 4)
            guard CRC32.checksum(bytes[typeStart..<typeStart + 4 + length]) == UInt32(crc) else {
                throw failure("the PNG chunk \(type) is corrupted")
            }
            if offset == 8 {
                guard type == "IHDR", length == 13 else { throw failure("the PNG file has no header") }
                size = (bigEndian(bytes, typeStart + 4, 4), bigEndian(bytes, typeStart + 8, 4))
            }
            offset = typeStart + 4 + length + 4
            if type == "IEND", let size { return size }
        }
    }

    /// Markers from SOI to EOI; the size comes from the start-of-frame marker.
    private static func jpeg(_ bytes: [UInt8]) throws -> (Int, Int) {
        var offset = 2
        var size: (Int, Int)?
        while offset + 4 <= bytes.count {
            guard bytes[offset] == 0xFF else { throw failure("the JPEG file is corrupted") }
            let marker = bytes[offset + 1]
            if marker == 0xFF {
                offset += 1
                continue
            }
            if marker == 0xD9 { break }
            if (0xD0...0xD7).contains(marker) || marker == 0x01 {
                offset += 2
                continue
            }
            let length = bigEndian(bytes, offset + 2, 2)
            guard length >= 2, offset + 2 + length <= bytes.count else { throw failure("the JPEG file is truncated") }
            if [0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF].contains(marker),
                length >= 7
            {
                size = (bigEndian(bytes, offset + 7, 2), bigEndian(bytes, offset + 5, 2))
            }
            offset += 2 + length
            if marker == 0xDA {
                // Entropy-coded data runs to the next marker that is not a stuffed 0xFF00 or a restart.
                while offset + 1 < bytes.count {
                    if bytes[offset] == 0xFF, bytes[offset + 1] != 0x00, !(0xD0...0xD7).contains(bytes[offset + 1]) {
                        break
                    }
                    offset += 1
                }
            }
        }
        guard offset + 2 <= bytes.count, bytes[offset] == 0xFF, bytes[offset + 1] == 0xD9 else {
            throw failure("the JPEG file is truncated")
        }
        guard let size else { throw failure("the JPEG file has no frame header") }
        return size
    }

    /// Header, optional colour table, then extension and image blocks up to the trailer.
    private static func gif(_ bytes: [UInt8]) throws -> (Int, Int) {
        guard bytes.count >= 13 else { throw failure("the GIF file is truncated") }
        let size = (littleEndian(bytes, 6, 2), littleEndian(bytes, 8, 2))
        var offset = 13
        if bytes[10] & 0x80 != 0 { offset += 3 << (Int(bytes[10] & 0x07) + 1) }
        func skipSubBlocks() throws {
            while true {
                guard offset < bytes.count else { throw failure("the GIF file is truncated") }
                let length = Int(bytes[offset])
                offset += 1 + length
                if length == 0 { return }
            }
        }
        var frames = 0
        while offset < bytes.count {
            switch bytes[offset] {
            case 0x3B:
                guard frames > 0 else { throw failure("the GIF file has no image") }
                return size
            case 0x21:
                offset += 2
                try skipSubBlocks()
            case 0x2C:
                guard offset + 10 <= bytes.count else { throw failure("the GIF file is truncated") }
                let flags = bytes[offset + 9]
                offset += 10
                if flags & 0x80 != 0 { offset += 3 << (Int(flags & 0x07) + 1) }
                offset += 1  // LZW minimum code size
                try skipSubBlocks()
                frames += 1
            default:
                throw failure("the GIF file is corrupted")
            }
        }
        throw failure("the GIF file is truncated")
    }

    /// RIFF length must match the file; the size comes from the VP8, VP8L or VP8X chunk.
    private static func webp(_ bytes: [UInt8]) throws -> (Int, Int) {
        guard bytes.count >= 30, littleEndian(bytes, 4, 4) + 8 == bytes.count else {
            throw failure("the WebP file is truncated")
        }
        let chunk = String(decoding: bytes[12..<16], as: UTF8.self)
        switch chunk {
        case "VP8 ":
            guard bytes[23] == 0x9D, bytes[24] == 0x01, bytes[25] == 0x2A else {
                throw failure("the WebP file is corrupted")
            }
            return (littleEndian(bytes, 26, 2) & 0x3FFF, littleEndian(bytes, 28, 2) & 0x3FFF)
        case "VP8L":
            guard bytes[20] == 0x2F else { throw failure("the WebP file is corrupted") }
            let bits = littleEndian(bytes, 21, 4)
            return ((bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1)
        case "VP8X":
            return (littleEndian(bytes, 24, 3) + 1, littleEndian(bytes, 27, 3) + 1)
        default:
            throw failure("the WebP file is corrupted")
        }
    }
}

/// CRC-32 (ISO-HDLC, as PNG uses it).
enum CRC32 {
    static let table: [UInt32] = (0..<256).map { index in
        (0..<8).reduce(UInt32(index)) { crc, _ in crc & 1 == 1 ? 0xEDB8_8320 ^ (crc >> 1) : crc >> 1 }
    }

    static func checksum(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        ~bytes.reduce(UInt32.max) { crc, byte in table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
    }
}
