import EmojiArtFetch
import EmojiArtImaging
import EmojiArtKit
import EmojiArtServer
import Foundation

/// A document's background picture for the commands that draw it (`render`, `mosaic`).
enum BackgroundImage {
    /// The background's bytes and facts: embedded, or fetched from its URL (nil if none or
    /// not fetched, with a warning saying why).
    static func load(of document: EmojiArtDocument, fetching: Bool) async throws -> (data: Data, info: ImageInfo)? {
        switch document.background {
        case .none:
            return nil
        case .image(let data, _):
            do {
                return (data, try ImageDecoder.decode(data))
            } catch {
                warn("note: the embedded background image is left out: \(error)")
                return nil
            }
        case .url(let url):
            guard fetching else {
                warn("note: the background at \(url.absoluteString) is left out (--no-fetch).")
                return nil
            }
            let configuration = try ServerConfiguration.fromProcessEnvironment(only: [
                "EMOJIART_FETCH_ALLOW", "EMOJIART_FETCH_PUBLIC",
            ])
            let fetcher = ImageFetcher(policy: configuration.fetchPolicy, limits: configuration.fetchLimits)
            do {
                let fetched = try await fetcher.fetch(url)
                return (fetched.data, try ImageDecoder.decode(fetched.data))
            } catch {
                warn("note: the background at \(url.absoluteString) is left out: \(error)")
                return nil
            }
        }
    }
}
