import EmojiArtKit
import EmojiArtLive
import EmojiArtStore
import Foundation
import Hummingbird

/// A document's state as the API returns it (docs/API.md, "Document state").
struct DocumentStateBody: ResponseEncodable, Equatable {
    struct EmojiBody: Codable, Equatable {
        var id: Int
        var text: String
        var x: Int
        var y: Int
        var size: Int
    }

    struct BackgroundBody: Codable, Equatable {
        var kind: String
        var url: String
        var mimeType: String?
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

    init(_ state: LiveDocumentState) {
        let document = state.document
        id = state.id
        title = document.title
        version = state.version
        switch document.background {
        case .none: background = nil
        case .url(let url): background = BackgroundBody(kind: "url", url: url.absoluteString)
        case .image(let data, let mimeType):
            background = BackgroundBody(
                kind: "image", url: DataURL(mimeType: mimeType, data: data).absoluteString, mimeType: mimeType)
        }
        emojis = document.emojis.map {
            EmojiBody(id: $0.id, text: $0.text, x: $0.position.x, y: $0.position.y, size: $0.size)
        }
        nextEmojiId = document.nextEmojiID
        undoActionName = state.undoActionName
        redoActionName = state.redoActionName
        createdAt = state.createdAt.apiString
        updatedAt = state.updatedAt.apiString
    }

    // Explicit so `null` is written for absent optionals, as the API documents.
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(title, forKey: .title)
        try container.encode(version, forKey: .version)
        try container.encode(background, forKey: .background)
        try container.encode(emojis, forKey: .emojis)
        try container.encode(nextEmojiId, forKey: .nextEmojiId)
        try container.encode(undoActionName, forKey: .undoActionName)
        try container.encode(redoActionName, forKey: .redoActionName)
        try container.encode(createdAt, forKey: .createdAt)
        try container.encode(updatedAt, forKey: .updatedAt)
    }

    private enum CodingKeys: String, CodingKey {
        case id, title, version, background, emojis, nextEmojiId, undoActionName, redoActionName, createdAt,
            updatedAt
    }
}

struct DocumentListBody: ResponseEncodable {
    struct Summary: Encodable {
        var id: UUID
        var title: String
        var emojiCount: Int
        var version: Int
        var createdAt: String
        var updatedAt: String
    }

    var documents: [Summary]

    init(_ summaries: [DocumentSummary]) {
        documents = summaries.map {
            Summary(
                id: $0.id, title: $0.title, emojiCount: $0.emojiCount, version: $0.version,
                createdAt: $0.createdAt.apiString, updatedAt: $0.updatedAt.apiString)
        }
    }
}

struct ImportBody: ResponseEncodable {
    var document: DocumentStateBody
    var format: String
    var notes: [String]
}

struct TitleRequest: Decodable {
    var title: String?
}

struct EditRequest: Decodable {
    var baseVersion: Int
    var edits: [Edit]?
    var edit: Edit?
    var gesture: String?

    /// The edits to apply, from either `edits` or `edit`.
    func allEdits() throws -> [Edit] {
        switch (edits, edit) {
        case (let edits?, nil): return edits
        case (nil, let edit?): return [edit]
        default: throw APIError.badRequest("Send either \"edits\" (a list) or \"edit\" (one edit).")
        }
    }
}

extension Date {
    /// ISO 8601 in UTC with seconds, e.g. 2026-11-22T03:05:10Z.
    var apiString: String {
        formatted(.iso8601)
    }
}
