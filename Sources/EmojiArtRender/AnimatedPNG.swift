import EmojiArtKit

/// Joins PNG pictures of one size into an animated PNG (APNG): the first picture's header,
/// an `acTL` chunk, then each picture's image data behind an `fcTL` chunk that says how long
/// it shows (its `IDAT` chunks for the first, renumbered as `fdAT` for the rest). Browsers and
/// image viewers that don't animate show the first picture.
public enum AnimatedPNG {
    /// One picture and how long it shows.
    public struct Frame: Sendable {
        public var png: [UInt8]
        public var milliseconds: Int

        public init(png: [UInt8], milliseconds: Int) {
            self.png = png
            self.milliseconds = milliseconds
        }
    }

    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// The APNG of `frames`, played `loops` times (0: for ever).
    ///
    /// - Throws: if a frame is not a PNG, or its header differs from the first's.
    public static func assemble(_ frames: [Frame], loops: Int = 0) throws -> [UInt8] {
        guard let first = frames.first else { throw EmojiArtError(.invalidFile, "a replay needs a frame.") }
        let header = try chunks(of: first.png).first { $0.type == "IHDR" }
        guard let header, header.data.count == 13 else {
            throw EmojiArtError(.invalidFile, "the first frame has no PNG header.")
        }
        var output = signature
        append("IHDR", header.data, to: &output)
        append("acTL", be32(frames.count) + be32(loops), to: &output)
        var sequence = 0
        for (index, frame) in frames.enumerated() {
            let parts = try chunks(of: frame.png)
            guard parts.first(where: { $0.type == "IHDR" })?.data == header.data else {
                throw EmojiArtError(.invalidFile, "frame \(index) differs in size or kind from the first.")
            }
            // width, height, x, y, delay numerator and denominator (ms), dispose: none, blend: source.
            let control =
                be32(sequence) + Array(header.data[0..<8]) + be32(0) + be32(0)
                + be16(min(max(frame.milliseconds, 1), 65_535)) + be16(1000) + [0, 0]
            append("fcTL", control, to: &output)
            sequence += 1
            for part in parts where part.type == "IDAT" {
                if index == 0 {
                    append("IDAT", part.data, to: &output)
                } else {
                    append("fdAT", be32(sequence) + part.data, to: &output)
                    sequence += 1
                }
            }
        }
        append("IEND", [], to: &output)
        return output
    }

    /// The chunks of a PNG, in order.
    static func chunks(of png: [UInt8]) throws -> [(type: String, data: [UInt8])] {
        guard png.count >= 8, Array(png[0..<8]) == signature else {
            throw EmojiArtError(.invalidFile, "a frame is not a PNG.")
        }
        var result: [(String, [UInt8])] = []
        var offset = 8
        while offset + 12 <= png.count {
            let length = png[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            let type = String(decoding: png[offset + 4..<offset + 8], as: UTF8.self)
            guard offset + 12 + length <= png.count else { throw EmojiArtError(.invalidFile, "a frame is cut short.") }
            result.append((type, Array(png[offset + 8..<offset + 8 + length])))
            offset += 12 + length
            if type == "IEND" { break }
        }
        return result
    }

    static func append(_ type: String, _ data: [UInt8], to output: inout [UInt8]) {
        output += be32(data.count)
        let typeBytes = Array(type.utf8)
        output += typeBytes
        output += data
        output += be32(Int(crc32(typeBytes + data)))
    }

    static func be32(_ value: Int) -> [UInt8] {
        [UInt8(value >> 24 & 0xFF), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }

    static func be16(_ value: Int) -> [UInt8] { [UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] }

    static let crcTable: [UInt32] = (0..<256).map { index in
        var value = UInt32(index)
        for _ in 0..<8 { value = value & 1 == 1 ? 0xEDB8_8320 ^ (value >> 1) : value >> 1 }
        return value
    }

    /// The CRC-32 PNG chunks end with.
    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes { crc = crcTable[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        return crc ^ 0xFFFF_FFFF
    }
}
