import EmojiArtDigest
import EmojiArtImaging
import EmojiArtKit
import Foundation

/// Image bytes kept once per content: the id is the SHA-256 of the bytes, so the same image
/// fetched for many documents, or uploaded twice, is stored once and can be cached forever.
public struct StoredImage: Sendable, Equatable {
    /// Lower-case hex SHA-256 of ``data``.
    public var id: String
    public var mimeType: String
    public var width: Int
    public var height: Int
    public var data: Data

    /// Checks the bytes are a whole PNG, JPEG, GIF or WebP image, decoding every pixel
    /// (``ImageDecoder``), and names them by their hash.
    public init(data: Data) throws {
        let info = try ImageDecoder.decode(data)
        self.init(
            id: StoredImage.id(of: data), mimeType: info.mimeType, width: info.width, height: info.height, data: data)
    }

    init(id: String, mimeType: String, width: Int, height: Int, data: Data) {
        self.id = id
        self.mimeType = mimeType
        self.width = width
        self.height = height
        self.data = data
    }

    public static func id(of data: Data) -> String {
        Digest.hex(Digest.sha256(data))
    }

    /// Whether `text` has the form of an image id (64 lower-case hex digits).
    public static func isID(_ text: String) -> Bool {
        text.utf8.count == 64 && text.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }
}
