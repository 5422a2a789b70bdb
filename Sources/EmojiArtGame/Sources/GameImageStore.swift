import EmojiArtStore
import Foundation

/// Keeps the game's pictures in the server's image store, where `/api/images/{id}` serves
/// them: every pixel is decoded first (``StoredImage``), and the same picture is kept once.
public struct GameImageStore: Sendable {
    let store: any ImageStore

    public init(store: any ImageStore) {
        self.store = store
    }

    /// - Parameter name: what the picture is called in the error, if it is not one.
    func keep(_ data: Data, name: String) async throws(GameImageError) -> GameImage {
        let image: StoredImage
        do {
            image = try StoredImage(data: data)
        } catch {
            throw .invalidImage("\(name) is not a whole PNG, JPEG, GIF or WebP image")
        }
        do {
            try await store.saveImage(image)
            // Anyone with an account plays, so anyone with an account may read it.
            try await store.recordImageUse(image.id, by: .game)
        } catch {
            throw .other("the image store refused it: \(error)")
        }
        return .stored(id: image.id)
    }
}
