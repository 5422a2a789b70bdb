import EmojiArtKit
import EmojiArtLive
import EmojiArtStore
import Foundation
import HTTPTypes
import Hummingbird

/// A document's state as the API returns it (docs/API.md, "Document state").
struct DocumentStateBody: ResponseGenerator, Equatable {
    struct EmojiBody: Equatable {
        var id: Int
        var text: String
        var x: Int
        var y: Int
        var size: Int

        init(_ emoji: Emoji) {
            (id, text, x, y, size) = (emoji.id, emoji.text, emoji.position.x, emoji.position.y, emoji.size)
        }
    }

    struct BackgroundBody: Equatable {
        var kind: String
        var url: String
        var mimeType: String?

        /// Nil for no background.
        init?(_ background: Background) {
            switch background {
            case .none: return nil
            case .url(let url): (kind, self.url, mimeType) = ("url", url.absoluteString, nil)
            case .image(let data, let mimeType):
                (kind, url, self.mimeType) = ("image", DataURL(mimeType: mimeType, data: data).absoluteString, mimeType)
            }
        }
    }

    var id: UUID
    var title: String
    var version: Int
    var background: BackgroundBody?
    var emojis: [EmojiBody]
    var nextEmojiId: Int
    var undoActionName: String?
    var redoActionName: String?
    var createdAt: String
    var updatedAt: String
    var backgroundState: BackgroundState
    /// The requester's role on the document (`owner`, `editor`, `viewer`), when known.
    var role: DocumentRole?

    init(_ state: LiveDocumentState, role: DocumentRole? = nil) {
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

    /// Written with the core's ``JSONWriter``: every edit answers with the whole state, and
    /// `JSONEncoder` was the largest single cost of an edit request.
    func response(from request: Request, context: some RequestContext) throws -> Response {
        var writer = JSONWriter(reservingCapacity: 256 + emojis.count * 56)
        write(into: &writer)
        return jsonResponse(writer.bytes)
    }

    func write(into writer: inout JSONWriter) {
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
    static func write(_ background: BackgroundBody?, into writer: inout JSONWriter) {
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

    /// `{"id", "text", "x", "y", "size"}`.
    static func write(_ emoji: EmojiBody, into writer: inout JSONWriter) {
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
        writer.raw("}")
    }

    /// `{"status": "none" | "fetching" | "found" | "failed", …}` (docs/API.md).
    static func write(_ state: BackgroundState, into writer: inout JSONWriter) {
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

func jsonResponse(_ bytes: [UInt8]) -> Response {
    var headers = HTTPFields()
    headers[.contentType] = "application/json; charset=utf-8"
    return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
}

struct DocumentListBody: ResponseEncodable {
    struct Summary: Encodable {
        var id: UUID
        var title: String
        var emojiCount: Int
        var version: Int
        var createdAt: String
        var updatedAt: String
        /// The requester's role: `owner` ("My documents"), `editor` or `viewer` ("Shared with me").
        var role: DocumentRole
    }

    var documents: [Summary]

    init(_ summaries: [DocumentSummary], role: (UUID) -> DocumentRole) {
        documents = summaries.map {
            Summary(
                id: $0.id, title: $0.title, emojiCount: $0.emojiCount, version: $0.version,
                createdAt: $0.createdAt.apiString, updatedAt: $0.updatedAt.apiString, role: role($0.id))
        }
    }
}

struct ImportBody: ResponseGenerator {
    var document: DocumentStateBody
    var format: String
    var notes: [String]

    func response(from request: Request, context: some RequestContext) throws -> Response {
        var writer = JSONWriter()
        writer.raw("{")
        writer.key("document")
        document.write(into: &writer)
        writer.raw(",")
        writer.key("format")
        writer.string(format)
        writer.raw(",")
        writer.key("notes")
        writer.raw("[")
        for (index, note) in notes.enumerated() {
            if index > 0 { writer.raw(",") }
            writer.string(note)
        }
        writer.raw("]}")
        return jsonResponse(writer.bytes)
    }
}

struct TitleRequest: Decodable {
    var title: String?
}

extension Date {
    /// ISO 8601 in UTC with seconds, e.g. 2026-11-22T03:05:10Z.
    var apiString: String {
        formatted(.iso8601)
    }
}
