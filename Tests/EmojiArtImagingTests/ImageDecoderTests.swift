import EmojiArtImaging
import EmojiArtKit
import Foundation
import Testing

@Suite("Images are decoded pixel by pixel: damage that keeps the structure whole is refused")
struct ImageDecoderTests {
    static let images: [(String, String, Int, Int)] = [
        ("red-7x5.png", "image/png", 7, 5),
        ("noise-64x48.png", "image/png", 64, 48),
        ("red-7x5.jpg", "image/jpeg", 7, 5),
        ("red-7x5-progressive.jpg", "image/jpeg", 7, 5),
        ("noise-64x48.jpg", "image/jpeg", 64, 48),
        ("red-7x5.gif", "image/gif", 7, 5),
        ("anim-4x6.gif", "image/gif", 4, 6),
        ("noise-64x48.gif", "image/gif", 64, 48),
        ("red-7x5-lossy.webp", "image/webp", 7, 5),
        ("red-7x5-lossless.webp", "image/webp", 7, 5),
        ("green-9x3-alpha.webp", "image/webp", 9, 3),
        ("noise-64x48-lossless.webp", "image/webp", 64, 48),
        ("anim-8x8.webp", "image/webp", 8, 8),
    ]

    @Test(arguments: images)
    func decodesEveryFixture(name: String, mimeType: String, width: Int, height: Int) throws {
        let info = try ImageDecoder.decode(try fixture(name))
        #expect(info.mimeType == mimeType)
        #expect(info.width == width)
        #expect(info.height == height)
    }

    @Test(arguments: images.map(\.0))
    func everyTruncationIsRefused(name: String) throws {
        let bytes = try fixture(name)
        for length in stride(from: 0, to: bytes.count, by: max(1, bytes.count / 97)) {
            #expect(throws: EmojiArtError.self, "\(name) cut to \(length) bytes") {
                try ImageDecoder.decode(bytes.prefix(length))
            }
        }
    }

    @Test func aPNGWithCorruptCompressedDataButValidChunksIsRefused() throws {
        var bytes = [UInt8](try fixture("noise-64x48.png"))
        let idat = try #require(Self.pngChunk("IDAT", in: bytes))
        bytes[idat.data.lowerBound + idat.data.count / 2] ^= 0x5A
        Self.fixCRC(of: idat, in: &bytes)
        #expect(throws: Never.self) { try ImageInfo(Data(bytes)) }
        let error = #expect(throws: EmojiArtError.self) { try ImageDecoder.decode(Data(bytes)) }
        #expect(error?.code == .invalidBackground)
        #expect(error?.message.contains("PNG data is damaged") == true)
    }

    @Test func aJPEGWhoseDataStopsEarlyIsRefusedEvenWithAnEndMarker() throws {
        let bytes = [UInt8](try fixture("noise-64x48.jpg"))
        let scan = try #require(Self.markerOffset(0xDA, in: bytes))
        let cut = Array(bytes[..<(scan + (bytes.count - scan) / 3)]) + [0xFF, 0xD9]
        #expect(throws: Never.self) { try ImageInfo(Data(cut)) }
        let error = #expect(throws: EmojiArtError.self) { try ImageDecoder.decode(Data(cut)) }
        #expect(error?.message.contains("JPEG data ends before the picture does") == true)
    }

    @Test func aGIFWithABrokenLZWStreamIsRefused() throws {
        var bytes = [UInt8](try fixture("noise-64x48.gif"))
        let block = try #require(Self.firstGIFImageBlock(in: bytes))
        for index in block { bytes[index] = 0xFF }
        #expect(throws: Never.self) { try ImageInfo(Data(bytes)) }
        let error = #expect(throws: EmojiArtError.self) { try ImageDecoder.decode(Data(bytes)) }
        #expect(error?.message.contains("GIF data is damaged") == true)
    }

    @Test func aWebPWithATruncatedBitstreamButConsistentSizesIsRefused() throws {
        let bytes = [UInt8](try fixture("noise-64x48-lossless.webp"))
        #expect(String(decoding: bytes[12..<16], as: UTF8.self) == "VP8L")
        let keptData = ((bytes.count - 20) / 2) & ~1
        var cut = Array(bytes[..<(20 + keptData)])
        Self.putLittleEndian(UInt32(cut.count - 8), at: 4, in: &cut)
        Self.putLittleEndian(UInt32(keptData), at: 16, in: &cut)
        #expect(throws: Never.self) { try ImageInfo(Data(cut)) }
        let error = #expect(throws: EmojiArtError.self) { try ImageDecoder.decode(Data(cut)) }
        #expect(error?.message.contains("WebP data") == true)
    }

    @Test func tooManyPixelsAreRefusedBeforeDecoding() throws {
        // 9,000 × 8,000 is within the 16,384-pixel side but over 64 megapixels.
        var png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        png += Self.chunk("IHDR", Self.bigEndian(9000) + Self.bigEndian(8000) + [8, 2, 0, 0, 0])
        png += Self.chunk("IDAT", [0x78, 0x9C, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01])
        png += Self.chunk("IEND", [])
        #expect(try ImageInfo(Data(png)).width == 9000)
        let error = #expect(throws: EmojiArtError.self) { try ImageDecoder.decode(Data(png)) }
        #expect(error?.message.contains("more than 64000000") == true)
    }

    @Test func textIsNotAnImage() {
        let error = #expect(throws: EmojiArtError.self) { try ImageDecoder.decode(Data("<svg/>".utf8)) }
        #expect(error?.message.contains("not a PNG, JPEG, GIF or WebP") == true)
    }

    // MARK: Helpers

    func fixture(_ name: String) throws -> Data {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/images/\(name)")
        return try Data(contentsOf: url)
    }

    static func pngChunk(_ type: String, in bytes: [UInt8]) -> (start: Int, data: Range<Int>)? {
        var offset = 8
        while offset + 12 <= bytes.count {
            let length = bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            if String(decoding: bytes[offset + 4..<offset + 8], as: UTF8.self) == type {
                return (offset, offset + 8..<offset + 8 + length)
            }
            offset += 12 + length
        }
        return nil
    }

    static func fixCRC(of chunk: (start: Int, data: Range<Int>), in bytes: inout [UInt8]) {
        let crc = crc32(Array(bytes[chunk.start + 4..<chunk.data.upperBound]))
        bytes.replaceSubrange(chunk.data.upperBound..<chunk.data.upperBound + 4, with: bigEndian(crc))
    }

    static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let body = Array(type.utf8) + data
        return bigEndian(UInt32(data.count)) + body + bigEndian(crc32(body))
    }

    static func bigEndian(_ value: UInt32) -> [UInt8] {
        [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> $0) }
    }

    static func putLittleEndian(_ value: UInt32, at offset: Int, in bytes: inout [UInt8]) {
        for index in 0..<4 { bytes[offset + index] = UInt8(truncatingIfNeeded: value >> (8 * index)) }
    }

    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }

    static func markerOffset(_ marker: UInt8, in bytes: [UInt8]) -> Int? {
        (0..<bytes.count - 1).first { bytes[$0] == 0xFF && bytes[$0 + 1] == marker }
    }

    /// The payload of the first LZW sub-block of the first frame.
    static func firstGIFImageBlock(in bytes: [UInt8]) -> Range<Int>? {
        var offset = 13
        if bytes[10] & 0x80 != 0 { offset += 3 << (Int(bytes[10] & 0x07) + 1) }
        while offset < bytes.count {
            switch bytes[offset] {
            case 0x21:  // extension: label, then sub-blocks
                offset += 2
                while bytes[offset] != 0 { offset += Int(bytes[offset]) + 1 }
                offset += 1
            case 0x2C:
                let flags = bytes[offset + 9]
                offset += 10
                if flags & 0x80 != 0 { offset += 3 << (Int(flags & 0x07) + 1) }
                offset += 1  // LZW minimum code size
                let length = Int(bytes[offset])
                return offset + 1..<offset + 1 + length
            default:
                return nil
            }
        }
        return nil
    }
}
