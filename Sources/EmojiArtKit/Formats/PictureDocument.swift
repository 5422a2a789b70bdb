import Foundation

/// A document carried inside a PNG picture of it: an `iTXt` chunk with the keyword `emojiart`
/// holding the native `.emojiart` file, uncompressed UTF-8. `emojiart render` and the editor's
/// PNG export write it; ``EmojiArtFile/read(_:defaultTitle:)`` opens such a PNG as the document.
public enum PictureDocument {
    public static let keyword = "emojiart"
    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// Whether `bytes` start like a PNG file.
    public static func isPNG(_ bytes: [UInt8]) -> Bool { bytes.starts(with: signature) }

    /// `png` with the document's native file added in an `iTXt` chunk just before `IEND`.
    public static func embed(_ document: EmojiArtDocument, in png: [UInt8]) -> [UInt8] {
        let native = EmojiArtFile.write(document, as: .native).bytes
        // keyword, NUL, compression flag 0, method 0, empty language tag, NUL, empty translated keyword, NUL, text
        let data = Array(keyword.utf8) + [0, 0, 0, 0, 0] + native
        var chunk = bigEndian(UInt32(data.count)) + Array("iTXt".utf8) + data
        chunk += bigEndian(CRC32.checksum(chunk[4...]))
        guard let end = iendOffset(png) else { return png }
        return Array(png[..<end]) + chunk + Array(png[end...])
    }

    /// The native file inside a PNG, or throws if the PNG carries none.
    public static func extract(_ png: [UInt8]) throws -> [UInt8] {
        var offset = signature.count
        while offset + 12 <= png.count {
            let length = Int(readBigEndian(png, offset))
            let typeStart = offset + 4
            guard length <= png.count - typeStart - 8 else { break }
            let type = String(decoding: png[typeStart..<typeStart + 4], as: UTF8.self)
            let data = png[(typeStart + 4)..<(typeStart + 4 + length)]
            if type == "iTXt", let text = iTXtText(data) { return text }
            if type == "IEND" { break }
            offset = typeStart + 8 + length
        }
        throw EmojiArtError(
            .invalidFile,
            "this PNG holds no EmojiArt document. Only pictures exported by EmojiArt (emojiart render, or Export → PNG in the editor) open as documents."
        )
    }

    /// The text of an uncompressed `iTXt` chunk with our keyword.
    private static func iTXtText(_ data: ArraySlice<UInt8>) -> [UInt8]? {
        let keywordBytes = Array(keyword.utf8)
        guard data.starts(with: keywordBytes + [0]) else { return nil }
        var index = data.startIndex + keywordBytes.count + 1
        guard index + 2 <= data.endIndex, data[index] == 0 else { return nil }  // not compressed
        index += 2
        // Language tag and translated keyword, each NUL-terminated.
        for _ in 0..<2 {
            guard let end = data[index...].firstIndex(of: 0) else { return nil }
            index = end + 1
        }
        return Array(data[index...])
    }

    private static func iendOffset(_ png: [UInt8]) -> Int? {
        var offset = signature.count
        while offset + 12 <= png.count {
            let length = Int(readBigEndian(png, offset))
            if String(decoding: png[(offset + 4)..<(offset + 8)], as: UTF8.self) == "IEND" { return offset }
            offset += 12 + length
        }
        return nil
    }

    private static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }

    private static func readBigEndian(_ bytes: [UInt8], _ offset: Int) -> UInt32 {
        bytes[offset..<offset + 4].reduce(0) { $0 << 8 | UInt32($1) }
    }
}
