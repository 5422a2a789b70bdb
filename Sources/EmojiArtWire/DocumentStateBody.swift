import EmojiArtKit
import EmojiArtLive
import EmojiArtStore
import Foundation

/// A document's state as the API returns it (docs/API.md, "Document state").
public struct DocumentStateBody: Sendable, Equatable {
    public struct EmojiBody: Sendable, Equatable {
        public var id: Int
        public var text: String
        public var x: Int
        public var y: Int
        public var size: Int
        /// Degrees clockwise, 0–359; written only when not 0.
        public var rotation: Int
        /// Written only when true.
        public var locked: Bool

        public init(_ emoji: Emoji) {
            (id, text, x, y, size) = (emoji.id, emoji.text, emoji.position.x, emoji.position.y, emoji.size)
            rotation = emoji.rotation
            locked = emoji.locked
        }
    }

    public struct BackgroundBody: Sendable, Equatable {
        public var kind: String
        public var url: String
        public var mimeType: String?

        /// Nil for no background.
        public init?(_ background: Background) {
            switch background {
            case .none: return nil
            case .url(let url): (kind, self.url, mimeType) = ("url", url.absoluteString, nil)
            case .image(let data, let mimeType):
                (kind, url, self.mimeType) = ("image", DataURL(mimeType: mimeType, data: data).absoluteString, mimeType)
            }
        }
    }

    public var id: UUID
    public var title: String
    public var version: Int
    public var background: BackgroundBody?
    public var emojis: [EmojiBody]
    public var nextEmojiId: Int
    public var undoActionName: String?
    public var redoActionName: String?
    public var createdAt: String
    public var updatedAt: String
    public var backgroundState: BackgroundState
    /// The requester's role on the document (`owner`, `editor`, `viewer`), when known.
    public var role: DocumentRole?

    public init(_ state: LiveDocumentState, role: DocumentRole? = nil) {
        self.role = role
        backgroundState = state.backgroundState
        let document = state.document
        id = state.id
        title = document.title
        version = state.version
        background = BackgroundBody(document.background)
        emojis = document.emojis.map(EmojiBody.init)
        nextEmojiId = document.nextEmojiID
        undoActionName = state.undoActionName
        redoActionName = state.redoActionName
        createdAt = state.createdAt.apiString
        updatedAt = state.updatedAt.apiString
    }

    /// The state as JSON bytes, written with the core's ``JSONWriter``.
    public var bytes: [UInt8] {
        var writer = JSONWriter(reservingCapacity: 256 + emojis.count * 56)
        write(into: &writer)
        return writer.bytes
    }

    public func write(into writer: inout JSONWriter) {
        writer.raw("{")
        writer.key("id")
        writer.string(id.uuidString)
        writer.raw(",")
        writer.key("title")
        writer.string(title)
        writer.raw(",")
        writer.key("version")
        writer.integer(version)
        writer.raw(",")
        writer.key("background")
        Self.write(background, into: &writer)
        writer.raw(",")
        writer.key("emojis")
        writer.raw("[")
        for (index, emoji) in emojis.enumerated() {
            if index > 0 { writer.raw(",") }
            Self.write(emoji, into: &writer)
        }
        writer.raw("],")
        writer.key("backgroundState")
        Self.write(backgroundState, into: &writer)
        writer.raw(",")
        writer.key("nextEmojiId")
        writer.integer(nextEmojiId)
        writer.raw(",")
        writer.key("undoActionName")
        writer.optionalString(undoActionName)
        writer.raw(",")
        writer.key("redoActionName")
        writer.optionalString(redoActionName)
        writer.raw(",")
        writer.key("createdAt")
        writer.string(createdAt)
        writer.raw(",")
        writer.key("updatedAt")
        writer.string(updatedAt)
        if let role {
            writer.raw(",")
            writer.key("role")
            writer.string(role.rawValue)
        }
        writer.raw("}")
    }
}

extension DocumentStateBody {
    /// `{"kind": "url" | "image", "url", "mimeType"?}`, or `null` for no background.
    public static func write(_ background: BackgroundBody?, into writer: inout JSONWriter) {
        guard let background else { return writer.raw("null") }
        writer.raw("{")
        writer.key("kind")
        writer.string(background.kind)
        writer.raw(",")
        writer.key("url")
        writer.string(background.url)
        if let mimeType = background.mimeType {
            writer.raw(",")
            writer.key("mimeType")
            writer.string(mimeType)
        }
        writer.raw("}")
    }

    /// `{"id", "text", "x", "y", "size"}`, `"rotation"` when the emoji is turned, `"locked": true`
    /// when it is locked.
    public static func write(_ emoji: EmojiBody, into writer: inout JSONWriter) {
        writer.raw("{")
        writer.key("id")
        writer.integer(emoji.id)
        writer.raw(",")
        writer.key("text")
        writer.string(emoji.text)
        writer.raw(",")
        writer.key("x")
        writer.integer(emoji.x)
        writer.raw(",")
        writer.key("y")
        writer.integer(emoji.y)
        writer.raw(",")
        writer.key("size")
        writer.integer(emoji.size)
        if emoji.rotation != 0 {
            writer.raw(",")
            writer.key("rotation")
            writer.integer(emoji.rotation)
        }
        if emoji.locked {
            writer.raw(",")
            writer.key("locked")
            writer.raw("true")
        }
        writer.raw("}")
    }

    /// `{"status": "none" | "fetching" | "found" | "failed", …}` (docs/API.md).
    public static func write(_ state: BackgroundState, into writer: inout JSONWriter) {
        writer.raw("{")
        writer.key("status")
        switch state {
        case .none:
            writer.string("none")
        case .fetching(let url):
            writer.string("fetching")
            if let url {
                writer.raw(",")
                writer.key("url")
                writer.string(url.absoluteString)
            }
        case .found(let imageID, let width, let height):
            writer.string("found")
            writer.raw(",")
            writer.key("imageURL")
            writer.string("/api/images/\(imageID)")
            writer.raw(",")
            writer.key("width")
            writer.integer(width)
            writer.raw(",")
            writer.key("height")
            writer.integer(height)
        case .failed(let url, let reason):
            writer.string("failed")
            if let url {
                writer.raw(",")
                writer.key("url")
                writer.string(url.absoluteString)
            }
            writer.raw(",")
            writer.key("reason")
            writer.string(reason)
        }
        writer.raw("}")
    }
}

extension Date {
    /// ISO 8601 in UTC with seconds, e.g. 2026-11-22T03:05:10Z.
    public var apiString: String {
        formatted(.iso8601)
    }
}
