import Foundation

/// Where background and game images live, by the SHA-256 of their bytes, and which URL gave
/// which image.
public protocol ImageStore: Sendable {
    /// Stores an image; storing the same bytes again changes nothing.
    func saveImage(_ image: StoredImage) async throws

    /// The image with this id (its SHA-256), or nil.
    func loadImage(id: String) async throws -> StoredImage?

    /// Remembers which image a URL gave, so it is not downloaded again.
    func saveImageSource(_ url: String, imageID: String) async throws

    /// The image a URL gave before, or nil.
    func imageID(forSource url: String) async throws -> String?
}
