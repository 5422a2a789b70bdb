import EmojiArtKit
import EmojiArtLive
import EmojiArtStore
import EmojiArtWire
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// `/api/documents/{id}/history` and `/restore`: a document's past (docs/API.md, "History").
/// Viewers may read history; only editors restore. Reading one past version is the `?version=N`
/// of ``DocumentsController``'s routes.
struct HistoryController {
    let library: DocumentLibrary
    let access: DocumentAccess
    let users: any UserStore
    let pictures: DocumentPictures
    /// Replays wait here for their turn to be drawn.
    let replays = TurnQueue()

    init(library: DocumentLibrary, access: DocumentAccess, users: any UserStore, images: any ImageStore) {
        self.library = library
        self.access = access
        self.users = users
        self.pictures = DocumentPictures(store: images)
    }

    /// Versions a page holds by default, and at most.
    static let defaultLimit = 100
    static let maximumLimit = 1_000

    struct HistoryBody: ResponseEncodable {
        struct Version: Encodable {
            var version: Int
            var at: String
            var actionName: String
            var author: String?
        }

        struct Session: Encodable {
            var firstVersion: Int
            var lastVersion: Int
            var start: String
            var end: String
            var author: String?
            var changes: Int
            var summary: String
            var counts: [String: Int]
        }

        var id: UUID
        /// The document's current version.
        var version: Int
        /// The oldest version that can be read: 0 unless old history was thinned.
        var oldestVersion: Int
        var versions: [Version]
        var sessions: [Session]
        /// The `before` of the next (older) page; null on the last.
        var next: Int?
    }

    struct RestoreRequest: Decodable {
        var version: Int
        /// An IANA time zone ("Europe/Berlin") for the undo step's name; UTC if absent.
        var timeZone: String?
    }

    func addRoutes(to group: RouterGroup<AppRequestContext>) {
        group.get(":id/history", use: history)
        group.get(":id/history/changes", use: changes)
        group.get(":id/replay", use: replay)
        group.post(":id/restore", use: restore)
    }

    /// `GET /api/documents/{id}/history/changes?after=V[&limit=N]`: the changes after version
    /// V, each with the patch live windows get, for scrubbing and replaying in the editor.
    @Sendable func changes(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (id, _) = try await access.require(.view, context)
        let query = request.uri.queryParameters
        guard let after = try QueryParameter.integer(query.get("after"), named: "after", in: 0...Int.max) else {
            throw APIError.badRequest("Say which version the changes come after: ?after=V.")
        }
        let limit = try QueryParameter.integer(query.get("limit"), named: "limit", in: 1...Self.maximumLimit) ?? 500
        let current = try await currentVersion(id)
        guard after <= current,
            let changes = try await library.history.changes(of: id, after: after, through: current, limit: limit)
        else { throw HistoryError.versionUnavailable(after) }
        var writer = JSONWriter(reservingCapacity: 256 + changes.count * 160)
        writer.raw("{")
        writer.key("after")
        writer.integer(after)
        writer.raw(",")
        writer.key("version")
        writer.integer(current)
        writer.raw(",")
        writer.key("changes")
        writer.raw("[")
        for (index, change) in changes.enumerated() {
            // Restores carry whole documents: a page ends early rather than grow past its budget.
            if index > 0 {
                guard writer.bytes.count < Self.changesBudget else { break }
                writer.raw(",")
            }
            writer.raw("{")
            writer.key("version")
            writer.integer(change.entry.version)
            writer.raw(",")
            writer.key("at")
            writer.string(change.entry.date.apiString)
            writer.raw(",")
            writer.key("actionName")
            writer.string(change.entry.displayName)
            if let follows = change.follows {
                writer.raw(",")
                writer.key("follows")
                writer.integer(follows)
            }
            writer.raw(",")
            writer.key("patch")
            LiveMessages.write(change.patch, into: &writer)
            writer.raw("}")
        }
        writer.raw("]}")
        var headers = HTTPFields()
        headers[.contentType] = "application/json; charset=utf-8"
        headers[.cacheControl] = "no-store"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: writer.bytes)))
    }

    /// About how many bytes a page of changes holds: it ends after the change that passes this
    /// (so a page always has one), and the client asks again after its last version.
    static let changesBudget = 4 << 20

    /// `GET /api/documents/{id}/replay[?from=A][&to=B][&frames=N][&seconds=S][&format=apng|gif]`:
    /// an animated PNG (or GIF, for chat apps) of the document being made, from version A (default 0, or where history starts) to B
    /// (default now), in N frames (default 120, at most 300) over S seconds (default 6).
    @Sendable func replay(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (id, _) = try await access.require(.view, context)
        let query = request.uri.queryParameters
        let format = query.get("format") ?? "apng"
        guard format == "apng" || format == "gif" else {
            throw APIError.badRequest("Unknown replay format \"\(format.prefix(40))\"; use apng or gif.")
        }
        let now = try await library.document(id) { try await $0.state() }
        let current = now.version
        let to = try QueryParameter.integer(query.get("to"), named: "to", in: 0...current) ?? current
        let from = try QueryParameter.integer(query.get("from"), named: "from", in: 0...to) ?? 0
        let frames =
            try QueryParameter.integer(query.get("frames"), named: "frames", in: 2...DocumentPictures.replayFrames)
            ?? 120
        let seconds = try QueryParameter.integer(query.get("seconds"), named: "seconds", in: 1...120) ?? 6
        // By default from where history starts: version 0, or the oldest kept if thinned.
        let start = query.get("from") == nil ? try await library.history.oldestVersion(of: id, through: to) : from
        let versions = Self.sample(from: start, to: to, count: frames)
        guard let read = try await library.history.documents(of: id, at: versions), read.count == versions.count
        else { throw HistoryError.versionUnavailable(start) }
        let documents = Self.withinBudget(read.map(\.document))
        let milliseconds = max(20, seconds * 1000 / max(1, documents.count))
        // One replay is drawn at a time; a few more wait their turn, and more than that are refused.
        guard
            let bytes = try await replays.withTurn(
                ["replay"], { try await pictures.replay(documents, milliseconds: milliseconds, gif: format == "gif") })
        else {
            throw APIError(
                status: .serviceUnavailable, code: "busy",
                message: "Too many replays are being drawn. Try again in a minute.", headers: [.retryAfter: "60"])
        }
        var headers = HTTPFields()
        headers[.contentType] = format == "gif" ? "image/gif" : "image/apng"
        headers[.cacheControl] = "no-store"
        let title = documents.last?.title ?? "Replay"
        headers[.contentDisposition] = ContentDisposition.attachment(
            filename: title + (format == "gif" ? " replay.gif" : " replay.png"))
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    /// How many emojis a replay draws at most, over all its frames.
    static let replayBudget = 1_000_000

    /// `frames` thinned evenly (the first and last kept) until drawing them all draws at most
    /// ``replayBudget`` emojis: a big document's replay has fewer frames.
    static func withinBudget(_ frames: [EmojiArtDocument]) -> [EmojiArtDocument] {
        var kept = frames
        while kept.count > 2, kept.reduce(0, { $0 + $1.emojis.count }) > replayBudget {
            let count = max(2, kept.count * 3 / 4)
            kept = sample(from: 0, to: kept.count - 1, count: count).map { kept[$0] }
        }
        return kept
    }

    /// `count` versions spread evenly from `from` to `to`, both included, in order.
    static func sample(from: Int, to: Int, count: Int) -> [Int] {
        let span = to - from
        guard span + 1 > count else { return Array(from...to) }
        return (0..<count).map { from + Int((Double($0) * Double(span) / Double(count - 1)).rounded()) }
    }

    private func currentVersion(_ id: UUID) async throws -> Int {
        try await library.document(id) { try await $0.state() }.version
    }

    /// `GET /api/documents/{id}/history[?before=V][&limit=N]`
    @Sendable func history(_ request: Request, context: AppRequestContext) async throws -> HistoryBody {
        let (id, _) = try await access.require(.view, context)
        let query = request.uri.queryParameters
        let limit =
            try QueryParameter.integer(query.get("limit"), named: "limit", in: 1...Self.maximumLimit)
            ?? Self.defaultLimit
        let current = try await library.document(id) { try await $0.state() }
        let before =
            try QueryParameter.integer(query.get("before"), named: "before", in: 0...Int.max) ?? current.version + 1
        let page = try await library.history.page(of: id, before: min(before, current.version + 1), limit: limit)
        var names = AuthorNames(users: users)
        var versions: [HistoryBody.Version] = []
        for entry in page.entries {
            versions.append(
                .init(
                    version: entry.version, at: entry.date.apiString, actionName: entry.displayName,
                    author: try await names.name(of: entry.author)))
        }
        if let origin = page.origin {
            versions.append(
                .init(
                    version: origin.version, at: origin.date.apiString,
                    actionName: origin.version == 0 ? "Created" : "Oldest Kept Version", author: nil))
        }
        var sessions: [HistoryBody.Session] = []
        for session in page.sessions {
            sessions.append(
                .init(
                    firstVersion: session.first, lastVersion: session.last, start: session.start.apiString,
                    end: session.end.apiString, author: try await names.name(of: session.author),
                    changes: session.counts.changes, summary: session.summary, counts: session.counts.byKind))
        }
        let oldest = try await library.history.oldestVersion(of: id, through: current.version)
        return HistoryBody(
            id: id, version: current.version, oldestVersion: oldest, versions: versions, sessions: sessions,
            next: page.next)
    }

    /// `POST /api/documents/{id}/restore` with `{"version": N}`: one new undoable change.
    @Sendable func restore(_ request: Request, context: AppRequestContext) async throws -> DocumentStateBody {
        let (id, grant) = try await access.require(.edit, context)
        guard let body = try await decode(RestoreRequest.self, from: request) else {
            throw APIError.badRequest("Send {\"version\": N}.")
        }
        guard body.version >= 0 else { throw APIError.badRequest("The version must be a whole number, 0 or more.") }
        let timeZone = try body.timeZone.map { name in
            guard name.utf8.count <= 64, let zone = TimeZone(identifier: name) else {
                throw APIError.badRequest("\"\(name.prefix(64))\" is not a time zone; use a name like Europe/Berlin.")
            }
            return zone
        }
        let state = try await library.restore(id, to: body.version, author: context.author) { date in
            restoreActionName(for: date, now: Date(), timeZone: timeZone ?? .gmt)
        }
        guard let state else { throw APIError.notFound("There is no document \(id).") }
        return DocumentStateBody(state, role: grant.role)
    }
}

/// Users' names by id, each looked up once.
private struct AuthorNames {
    let users: any UserStore
    var known: [UUID: String?] = [:]

    mutating func name(of id: UUID?) async throws -> String? {
        guard let id, id != LocalUser.id else { return nil }
        if let name = known[id] { return name }
        let name = try await users.user(id: id)?.name
        known[id] = name
        return name
    }
}

extension ChangeCounts {
    /// The non-zero counts by kind, as the API names them.
    var byKind: [String: Int] {
        [
            "added": added, "deleted": deleted, "moved": moved, "resized": resized, "turned": turned,
            "replaced": replaced,
            "rearranged": rearranged, "renamed": renamed, "backgrounds": backgrounds, "undone": undone,
            "redone": redone, "restored": restored,
        ].filter { $0.value > 0 }
    }
}
