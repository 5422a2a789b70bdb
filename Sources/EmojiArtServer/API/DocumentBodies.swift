import EmojiArtKit
import EmojiArtLive
import EmojiArtStore
import EmojiArtWire
import Foundation
import HTTPTypes
import Hummingbird

/// The document state (``DocumentStateBody``, from the wire target) as an HTTP response.
extension DocumentStateBody: ResponseGenerator {
    /// Written with the core's ``JSONWriter``: every edit answers with the whole state, and
    /// `JSONEncoder` was the largest single cost of an edit request.
    public func response(from request: Request, context: some RequestContext) throws -> Response {
        jsonResponse(bytes)
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
    /// The `cursor` of the next page; null on the last.
    var next: String?

    private enum CodingKeys: String, CodingKey { case documents, next }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(documents, forKey: .documents)
        try container.encode(next, forKey: .next)
    }

    init(_ page: DocumentListPage, next: String?) {
        documents = page.entries.map { entry in
            let summary = entry.summary
            return Summary(
                id: summary.id, title: summary.title, emojiCount: summary.emojiCount, version: summary.version,
                createdAt: summary.createdAt.apiString, updatedAt: summary.updatedAt.apiString, role: entry.role)
        }
        self.next = next
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
