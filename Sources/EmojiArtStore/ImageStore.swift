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

    /// Remembers that `use` uses the image, so the people who may see it may read the image;
    /// recording it again changes nothing.
    func recordImageUse(_ imageID: String, by use: ImageUse) async throws

    /// Whether `reader` may read the image: it uploaded it, or may see a document that uses it
    /// (as a member or owner, or through one of its links), or has an account and the game
    /// shows it. False for an image that isn't stored, so nobody learns which images are.
    func mayRead(imageID: String, _ reader: ImageReader) async throws -> Bool
}

/// What an image is for, which says who may read it (`GET /api/images/{id}`).
public enum ImageUse: Hashable, Sendable {
    /// A document's background, now or once: whoever may see the document.
    case document(UUID)
    /// Uploaded by this user.
    case uploader(UUID)
    /// A picture of Find or Lose: whoever has an account.
    case game

    /// How the SQL stores keep it.
    public var kind: String {
        switch self {
        case .document: "document"
        case .uploader: "uploader"
        case .game: "game"
        }
    }

    public var subject: UUID {
        switch self {
        case .document(let id), .uploader(let id): id
        case .game: UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
        }
    }
}

/// Who asks for an image: a signed-in user (or nobody), and the documents the share links
/// their browser holds open.
public struct ImageReader: Sendable, Equatable {
    public var userID: UUID?
    public var linkedDocuments: [UUID]

    public init(userID: UUID?, linkedDocuments: [UUID]) {
        self.userID = userID
        self.linkedDocuments = linkedDocuments
    }
}
