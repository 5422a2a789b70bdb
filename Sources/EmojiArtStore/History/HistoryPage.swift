import EmojiArtKit
import Foundation

/// One page of a document's history, newest first: what `GET /api/documents/{id}/history`
/// answers.
public struct HistoryPage: Sendable, Equatable {
    /// The page's versions, newest first.
    public var entries: [LogEntry]
    /// The sessions the page's versions belong to, newest first, each whole (also where it
    /// runs on into the next page or the one before).
    public var sessions: [HistorySession]
    /// The `before` that gives the next (older) page; nil on the last page.
    public var next: Int?
    /// On the last page: the oldest version kept without a log entry of its own (the
    /// document as it was created or imported, or where thinned history starts).
    public var origin: (version: Int, date: Date)?

    public static func == (lhs: HistoryPage, rhs: HistoryPage) -> Bool {
        lhs.entries == rhs.entries && lhs.sessions == rhs.sessions && lhs.next == rhs.next
            && lhs.origin?.version == rhs.origin?.version && lhs.origin?.date == rhs.origin?.date
    }
}

extension HistoryReader {
    /// How far a page's first and last sessions are followed into the neighbouring pages.
    static let sessionReach = 20_000

    /// The `limit` newest versions below `before` (the whole history: the current version
    /// plus one), with their sessions.
    public func page(of id: UUID, before: Int, limit: Int) async throws -> HistoryPage {
        let limit = max(1, limit)
        var entries = try await store.recentLogEntries(of: id, through: before - 1, limit: limit + 1)
        let more = entries.count > limit
        if more { entries.removeLast() }
        var sessions = HistorySession.group(entries.reversed())
        if let oldest = entries.last, more {
            sessions[0] = try await extendBack(sessions[0], from: oldest.version, of: id)
        }
        if let newest = entries.first {
            sessions[sessions.count - 1] = try await extendForward(
                sessions[sessions.count - 1], from: newest.version, of: id)
        }
        var origin: (Int, Date)?
        if !more, let start = try await store.checkpoint(of: id, atOrBefore: (entries.last?.version ?? before) - 1) {
            origin = (start.version, start.updatedAt)
        }
        return HistoryPage(
            entries: entries, sessions: sessions.reversed(), next: more ? entries.last?.version : nil, origin: origin)
    }

    private func extendBack(_ session: HistorySession, from version: Int, of id: UUID) async throws -> HistorySession {
        var session = session
        var through = version - 1
        var read = 0
        while read < Self.sessionReach {
            let older = try await store.recentLogEntries(of: id, through: through, limit: 500)
            for entry in older {
                guard session.continuesBack(to: entry) else { return session }
                session.prepend(entry)
            }
            guard let last = older.last, older.count == 500 else { return session }
            through = last.version - 1
            read += older.count
        }
        return session
    }

    private func extendForward(_ session: HistorySession, from version: Int, of id: UUID) async throws
        -> HistorySession
    {
        var session = session
        var low = version + 1
        while low - version <= Self.sessionReach {
            let newer = try await store.logEntries(of: id, in: low...(low + 499))
            for entry in newer {
                guard session.continues(with: entry) else { return session }
                session.append(entry)
            }
            guard newer.count == 500 else { return session }
            low += 500
        }
        return session
    }
}
