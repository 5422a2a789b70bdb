import EmojiArtKit
import EmojiArtStore
import Foundation
import Metrics

/// Gets documents' background images: each URL is downloaded once — several documents asking
/// at the same time share one download — and remembered in the store (image bytes by hash, and
/// which image a URL gave), so reopening a document uses the stored bytes. A download nobody
/// waits for any more (every document that asked has moved on to another background) is
/// cancelled.
public actor BackgroundImages {
    /// Downloads an image; throws an error whose description says what went wrong.
    public typealias Fetch = @Sendable (URL) async throws -> StoredImage

    private typealias Download = Task<Result<StoredImage, BackgroundImageError>, Never>

    private let store: any ImageStore
    private let fetch: Fetch
    /// Each download in progress, with the callers still waiting for it.
    private var inFlight: [URL: (download: Download, waiters: Set<UUID>)] = [:]

    public init(store: any ImageStore, fetch: @escaping Fetch) {
        self.store = store
        self.fetch = fetch
    }

    /// The image at `url` for `document`'s background: from the store if it was fetched
    /// before, else downloaded (once), and recorded as the document's, so the people who may
    /// see the document may read it (``ImageStore/mayRead(imageID:_:)``). Cancelling the calling
    /// task stops waiting; the download is cancelled when no caller waits for it any more.
    public func image(for url: URL, document: UUID) async -> Result<StoredImage, BackgroundImageError> {
        await recordingUse(by: document, await image(for: url))
    }

    /// Records a found image as `document`'s before the document shows it; an image that can't
    /// be recorded is as good as not found.
    private func recordingUse(
        by document: UUID, _ result: Result<StoredImage, BackgroundImageError>
    ) async -> Result<StoredImage, BackgroundImageError> {
        guard case .success(let image) = result else { return result }
        do {
            try await store.recordImageUse(image.id, by: .document(document))
            return result
        } catch {
            return .failure(BackgroundImageError(reason: "The image store can't be written: \(error)"))
        }
    }

    private func image(for url: URL) async -> Result<StoredImage, BackgroundImageError> {
        let download = inFlight[url]?.download ?? startDownload(url)
        let waiter = UUID()
        inFlight[url, default: (download, [])].waiters.insert(waiter)
        let result = await withTaskCancellationHandler {
            await download.value
        } onCancel: {
            Task { await self.stopWaiting(waiter, for: url) }
        }
        stopWaiting(waiter, for: url)
        return result
    }

    /// Whether a download of `url` is in progress (for tests).
    public func isDownloading(_ url: URL) -> Bool {
        inFlight[url] != nil
    }

    private func stopWaiting(_ waiter: UUID, for url: URL) {
        guard var entry = inFlight[url], entry.waiters.remove(waiter) != nil else { return }
        if entry.waiters.isEmpty {
            entry.download.cancel()  // no effect once it has finished
            inFlight[url] = nil
        } else {
            inFlight[url] = entry
        }
    }

    private func startDownload(_ url: URL) -> Download {
        let store = self.store
        let fetch = self.fetch
        return Download {
            do {
                if let id = try await store.imageID(forSource: url.absoluteString),
                    let image = try await store.loadImage(id: id)
                {
                    Self.count("stored")
                    return .success(image)
                }
            } catch {
                // The cache is only a shortcut: fall through to downloading.
            }
            do {
                let image = try await fetch(url)
                try await store.saveImage(image)
                try await store.saveImageSource(url.absoluteString, imageID: image.id)
                Self.count("fetched")
                return .success(image)
            } catch is CancellationError {
                Self.count("cancelled")
                return .failure(BackgroundImageError(reason: "The download was cancelled."))
            } catch let error as BackgroundImageError {
                Self.count("failed")
                return .failure(error)
            } catch let error as EmojiArtError {
                Self.count("failed")
                return .failure(
                    BackgroundImageError(reason: error.message.prefix(1).uppercased() + error.message.dropFirst()))
            } catch {
                Self.count(Task.isCancelled ? "cancelled" : "failed")
                return .failure(BackgroundImageError(reason: String(describing: error)))
            }
        }
    }

    /// Counts a background's fetch by how it ended: `stored` (fetched before), `fetched`,
    /// `failed` or `cancelled` (`emojiart_background_fetches_total` on `/metrics`).
    private static func count(_ outcome: String) {
        Counter(label: "emojiart_background_fetches_total", dimensions: [("outcome", outcome)]).increment()
    }

    /// Checks `document`'s embedded image bytes and stores them, so every background is served
    /// the same way (and read by whoever may see the document).
    public func store(_ data: Data, document: UUID) async -> Result<StoredImage, BackgroundImageError> {
        await recordingUse(by: document, await store(data))
    }

    private func store(_ data: Data) async -> Result<StoredImage, BackgroundImageError> {
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
