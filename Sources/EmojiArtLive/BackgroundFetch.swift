import EmojiArtKit
import EmojiArtStore
import Foundation

/// Where a live document is in getting its background image, and what to do next, as a value:
/// ``refresh(for:)`` says which fetch to start (superseding any in flight) when the committed
/// background changes, and ``finish(_:with:)`` takes a fetch's result unless it was superseded.
/// ``LiveDocument`` starts and cancels the fetches it names.
struct BackgroundFetch {
    /// A fetch to start.
    enum Start: Equatable {
        /// Download (or find in the store) the image at this address.
        case download(URL, token: Int)
        /// Check and store embedded bytes.
        case check(Data, token: Int)
    }

    /// What ``refresh(for:)`` decided: the fetch in flight, if any, is superseded (cancel it);
    /// `start` is the one to start instead, if any.
    struct Refresh: Equatable {
        var start: Start?
    }

    private(set) var state: BackgroundState = .none
    /// The background ``state`` is about; nil until the first refresh.
    private var source: Background?
    /// Identifies the current fetch: a result carrying another token was superseded.
    private var token = 0
    /// Whether images can be fetched at all (a library without an image store leaves every state `none`).
    let canFetch: Bool

    init(canFetch: Bool) {
        self.canFetch = canFetch
    }

    /// Brings the state up to date with the committed background. Nil if it is unchanged (the
    /// fetch in flight, if any, carries on).
    mutating func refresh(for background: Background) -> Refresh? {
        guard background != source else { return nil }
        source = background
        token += 1
        guard canFetch else {
            state = .none
            return Refresh(start: nil)
        }
        switch background {
        case .none:
            state = .none
            return Refresh(start: nil)
        case .url(let documentURL):
            let url = ImageAddress.unwrapped(documentURL)
            state = .fetching(url: url)
            return Refresh(start: .download(url, token: token))
        case .image(let data, _):
            state = .fetching(url: nil)
            return Refresh(start: .check(data, token: token))
        }
    }

    /// Takes a fetch's result. False (nothing changes) if a newer background superseded it.
    mutating func finish(_ start: Start, with result: Result<StoredImage, BackgroundImageError>) -> Bool {
        let (startToken, url): (Int, URL?) =
            switch start {
            case .download(let url, let token): (token, url)
            case .check(_, let token): (token, nil)
            }
        guard startToken == token else { return false }
        switch result {
        case .success(let image):
            state = .found(imageID: image.id, width: image.width, height: image.height)
        case .failure(let error):
            let reason =
                url.map { "Couldn't load image from \($0.absoluteString): \(error.reason)" }
                ?? "Couldn't use the embedded image: \(error.reason)"
            state = .failed(url: url, reason: reason)
        }
        return true
    }
}
