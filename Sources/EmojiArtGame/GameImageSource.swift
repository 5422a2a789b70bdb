import EmojiArtFetch

/// What a tile shows: an emoji drawn by the page, or an image in the server's image store
/// (served from `/api/images/{id}`, so the page never contacts a third party).
public enum GameImage: Sendable, Hashable {
    case emoji(String)
    case stored(id: String)
}

/// Why a round's images did not arrive. Each case is told to the player, and the game stops.
public enum GameImageError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The image API or the image's server answered with this status.
    case badStatus(Int)
    /// The image API's answer was not what it promises (no `urls.regular`, not JSON, …).
    case undecodable(String)
    /// The bytes are not a whole PNG, JPEG, GIF or WebP image (or are too large).
    case invalidImage(String)
    /// The address given for an image is not one the server may fetch.
    case invalidURL(String)
    /// The source's call allowance is used up (Unsplash: 50 calls an hour).
    case rateLimited(String)
    /// Anything else: the network, a timeout, an unreadable folder.
    case other(String)

    /// A short, stable name for the page.
    public var code: String {
        switch self {
        case .badStatus: "bad_status"
        case .undecodable: "undecodable"
        case .invalidImage: "invalid_image"
        case .invalidURL: "invalid_url"
        case .rateLimited: "rate_limited"
        case .other: "other"
        }
    }

    public var description: String {
        switch self {
        case .badStatus(let status): "The image service answered with status \(status)."
        case .undecodable(let reason): "The image service's answer couldn't be read: \(reason.asClause)."
        case .invalidImage(let reason): "A picture for this level isn't a usable image: \(reason.asClause)."
        case .invalidURL(let reason):
            "A picture for this level has an address the server won't fetch: \(reason.asClause)."
        case .rateLimited(let reason): reason
        case .other(let reason): "The pictures for this level couldn't be fetched: \(reason.asClause)."
        }
    }
}

/// What the player is told about the source under the tiles.
public struct GameSourceStatus: Sendable, Equatable {
    public var name: String
    /// Calls left in the current allowance, when the source has one and has said.
    public var remainingCalls: Int?
    /// The allowance, when there is one.
    public var callLimit: Int?

    public init(name: String, remainingCalls: Int? = nil, callLimit: Int? = nil) {
        self.name = name
        self.remainingCalls = remainingCalls
        self.callLimit = callLimit
    }
}

/// Where the game's pictures come from: an Unsplash-compatible API
/// (``UnsplashImageSource``), a folder (``FolderImageSource``), or the palettes' emojis
/// (``EmojiTileSource``, the offline default).
public protocol GameImageSource: Sendable {
    /// One random picture, ready to show: for an API, the call that picks one and then its
    /// download into the image store.
    func randomImage() async throws(GameImageError) -> GameImage
    func status() async -> GameSourceStatus
}
