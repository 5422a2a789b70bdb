import Foundation

/// A `data:` URL (RFC 2397) carrying an image: how embedded backgrounds travel in the native
/// and 2023 formats, and how users paste images.
public struct DataURL: Equatable, Sendable {
    public var mimeType: String
    public var data: Data

    public init(mimeType: String, data: Data) {
        self.mimeType = mimeType
        self.data = data
    }

    /// Parses `data:image/png;base64,…` (or the percent-encoded form) and checks it is an image.
    public init(parsing text: String, path: String = "background") throws {
        guard text.prefix(5).lowercased() == "data:", let comma = text.firstIndex(of: ",") else {
            throw EmojiArtError(.invalidBackground, "not a data: URL.", path: path)
        }
        let header = text[text.index(text.startIndex, offsetBy: 5)..<comma]
        let payload = text[text.index(after: comma)...]
        var parameters = header.split(separator: ";", omittingEmptySubsequences: false).map {
            $0.trimmingCharacters(in: .whitespaces).lowercased()
        }
        let isBase64 = parameters.last == "base64"
        if isBase64 { parameters.removeLast() }
        let mimeType = parameters.first ?? ""
        guard DataURL.isImageMIMEType(mimeType) else {
            throw EmojiArtError(
                .invalidBackground,
                "a data: URL background must hold an image (data:image/…), not \"\(mimeType.prefix(60))\".",
                path: path)
        }
        let decoded: Data?
        if isBase64 {
            decoded = Base64.decode(String(payload))
        } else {
            decoded = DataURL.percentDecoded(payload)
        }
        guard let decoded else {
            throw EmojiArtError(
                .invalidBackground, "the data: URL's image is not valid \(isBase64 ? "base64" : "percent-encoding").",
                path: path)
        }
        try Background.validateImage(data: decoded, mimeType: mimeType, path: path)
        self.init(mimeType: mimeType, data: decoded)
    }

    /// `data:<mime>;base64,<bytes>`
    public var absoluteString: String {
        "data:\(mimeType);base64,\(data.base64EncodedString())"
    }

    /// Percent-decodes to bytes (not text: the payload may be binary), or nil if malformed.
    static func percentDecoded(_ text: Substring) -> Data? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else {
                return nil
            }
            bytes.append(high << 4 | low)
        }
        return Data(bytes)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// `image/<token>`, lower case, no parameters.
    static func isImageMIMEType(_ mimeType: String) -> Bool {
        let parts = mimeType.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0] == "image", !parts[1].isEmpty, parts[1].count <= 64 else {
            return false
        }
        return parts[1].allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) }
    }
}

/// Base64 helpers shared by the formats.
enum Base64 {
    /// Decodes standard base64, allowing whitespace and line breaks (as some encoders write)
    /// but nothing else.
    static func decode(_ text: String) -> Data? {
        guard isCanonicalish(text) else { return nil }
        return Data(base64Encoded: text, options: .ignoreUnknownCharacters)
    }

    /// Only base64 alphabet, padding and whitespace: `ignoreUnknownCharacters` alone would
    /// accept garbage.
    static func isCanonicalish(_ text: String) -> Bool {
        text.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "+"), UInt8(ascii: "/"),
                UInt8(ascii: "="), UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\r"),
                UInt8(ascii: "\t"):
                true
            default:
                false
            }
        }
    }
}

/// Recognises image bytes by their signature, for formats that carry bytes without a type.
public enum ImageSignature {
    /// The MIME type of PNG, JPEG, GIF or WebP bytes, or nil.
    public static func mimeType(of data: Data) -> String? {
        let bytes = [UInt8](data.prefix(12))
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return "image/png" }
        if bytes.starts(with: [0xFF, 0xD8, 0xFF]) { return "image/jpeg" }
        if bytes.starts(with: Array("GIF87a".utf8)) || bytes.starts(with: Array("GIF89a".utf8)) {
            return "image/gif"
        }
        if bytes.count >= 12, bytes.starts(with: Array("RIFF".utf8)), Array(bytes[8..<12]) == Array("WEBP".utf8) {
            return "image/webp"
        }
        return nil
    }
}
