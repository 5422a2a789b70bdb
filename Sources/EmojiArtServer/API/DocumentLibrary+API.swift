import EmojiArtLive
import Foundation

extension DocumentLibrary {
    /// Runs `body` with the live document `id`, or answers `404` if there is none: the routes'
    /// one way to open a document.
    func document<T: Sendable>(_ id: UUID, _ body: @Sendable (LiveDocument) async throws -> T) async throws -> T {
        guard let result = try await withDocument(id, body) else {
            throw APIError.notFound("There is no document \(id).")
        }
        return result
    }
}
