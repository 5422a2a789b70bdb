import EmojiArtKit
import EmojiArtLive
import EmojiArtStore
import EmojiArtWire
import Foundation
import Hummingbird

/// `/api/documents/{id}/history` and `/restore`: a document's past (docs/API.md, "History").
/// Viewers may read history; only editors restore. Reading one past version is the `?version=N`
/// of ``DocumentsController``'s routes.
struct HistoryController {
    let library: DocumentLibrary
    let access: DocumentAccess
    let users: any UserStore

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
        group.post(":id/restore", use: restore)
    }

    /// `GET /api/documents/{id}/history[?before=V][&limit=N]`
    @Sendable func history(_ request: Request, context: AppRequestContext) async throws -> HistoryBody {
        let (id, _) = try await access.require(.view, context)
        let query = request.uri.queryParameters
        let limit = try Self.integer(query.get("limit"), named: "limit", in: 1...Self.maximumLimit) ?? Self.defaultLimit
        guard let current = try await library.withDocument(id, { try await $0.state() }) else {
            throw APIError.notFound("There is no document \(id).")
        }
        let before = try Self.integer(query.get("before"), named: "before", in: 0...Int.max) ?? current.version + 1
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
        return HistoryBody(id: id, version: current.version, versions: versions, sessions: sessions, next: page.next)
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

    private static func integer(_ text: String?, named name: String, in range: ClosedRange<Int>) throws -> Int? {
        guard let text else { return nil }
        guard let value = Int(text), range.contains(value) else {
            throw APIError.badRequest(
                range.upperBound == Int.max
                    ? "\(name) must be a whole number, \(range.lowerBound) or more."
                    : "\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound).")
        }
        return value
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
            "rearranged": rearranged, "renamed": renamed, "backgrounds": backgrounds, "undone": undone,
            "redone": redone, "restored": restored,
        ].filter { $0.value > 0 }
    }
}
