import EmojiArtKit
import EmojiArtStore
import Foundation

/// Gets documents' background images: each URL is downloaded once — several documents asking
/// at the same time share one download — and remembered in the store (image bytes by hash, and
/// which image a URL gave), so reopening a document uses the stored bytes.
public actor BackgroundImages {
    /// Downloads an image; throws an error whose description says what went wrong.
    public typealias Fetch = @Sendable (URL) async throws -> StoredImage

    private let store: any DocumentStore
    private let fetch: Fetch
    private var inFlight: [URL: Task<Result<StoredImage, BackgroundImageError>, Never>] = [:]

    public init(store: any DocumentStore, fetch: @escaping Fetch) {
        self.store = store
        self.fetch = fetch
    }

    /// The image at `url`: from the store if it was fetched before, else downloaded (once).
    public func image(for url: URL) async -> Result<StoredImage, BackgroundImageError> {
        if let task = inFlight[url] { return await task.value }
        let store = self.store
        let fetch = self.fetch
        let task = Task<Result<StoredImage, BackgroundImageError>, Never> {
            do {
                if let id = try await store.imageID(forSource: url.absoluteString),
                    let image = try await store.loadImage(id: id)
                {
                    return .success(image)
                }
            } catch {
                // The cache is only a shortcut: fall through to downloading.
            }
            do {
                let image = try await fetch(url)
                try await store.saveImage(image)
                try await store.saveImageSource(url.absoluteString, imageID: image.id)
                return .success(image)
            } catch let error as BackgroundImageError {
                return .failure(error)
            } catch let error as EmojiArtError {
                return .failure(
                    BackgroundImageError(reason: error.message.prefix(1).uppercased() + error.message.dropFirst()))
            } catch {
                return .failure(BackgroundImageError(reason: String(describing: error)))
            }
        }
        inFlight[url] = task
        let result = await task.value
        inFlight[url] = nil
        return result
    }

    /// Checks embedded image bytes and stores them, so every background is served the same way.
    public func store(_ data: Data) async -> Result<StoredImage, BackgroundImageError> {
        do {
            let image = try StoredImage(data: data)
            try await store.saveImage(image)
            return .success(image)
        } catch let error as EmojiArtError {
            return .failure(
                BackgroundImageError(reason: error.message.prefix(1).uppercased() + error.message.dropFirst()))
        } catch {
            return .failure(BackgroundImageError(reason: String(describing: error)))
        }
    }
}

/// Why a background image could not be had, in words for the "Set Background" alert.
public struct BackgroundImageError: Error, Equatable, Sendable, CustomStringConvertible {
    public var reason: String

    public init(reason: String) {
        self.reason = reason
    }

    public var description: String { reason }
}

/// Where a live document is in getting its background image (PRODUCT.md §1.4).
public enum BackgroundState: Sendable, Equatable {
    case none
    /// `url` is nil while embedded bytes are being checked.
    case fetching(url: URL?)
    case found(imageID: String, width: Int, height: Int)
    case failed(url: URL?, reason: String)
}
