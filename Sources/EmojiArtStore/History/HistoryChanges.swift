import EmojiArtKit
import Foundation

extension HistoryReader {
    /// A past change with the patch that turns the version before it into it: what the
    /// editor's History panel scrubs and replays with (the same patches live windows get).
    public struct Change: Sendable, Equatable {
        public var entry: LogEntry
        public var patch: DocumentPatch
        /// Where history was thinned: the version the patch applies to, older than the one
        /// before `entry` (the patch then replaces everything). Nil for a change that follows on.
        public var follows: Int?
    }

    /// Up to `limit` changes after `version`, in order. Where history was thinned, the next
    /// version kept comes as a change that `follows` the last one and replaces everything.
    /// Nil if `version` can't be read.
    public func changes(of id: UUID, after version: Int, limit: Int) async throws -> [Change]? {
        guard var current = try await document(id: id, at: version) else { return nil }
        var changes: [Change] = []
        for entry in try await store.logEntries(of: id, in: (version + 1)...(version + max(1, limit))) {
            if entry.version != current.version + 1 {
                guard let kept = try await checkpoint(at: entry.version, of: id) else { break }
                changes.append(
                    Change(
                        entry: entry, patch: Self.replacing(current.document, with: kept.document),
                        follows: current.version))
                current = kept
                continue
            }
            let firstNewID = current.document.nextEmojiID
            let idsBefore = DocumentPatch.needsIDsBefore(entry.edits) ? current.document.emojis.ids : nil
            try current.fold(entry)
            changes.append(
                Change(
                    entry: entry,
                    patch: DocumentPatch(
                        edits: entry.edits, firstNewID: firstNewID, after: current.document, idsBefore: idsBefore),
                    follows: nil))
        }
        return changes
    }

    /// The checkpoint at exactly `version` (a thinned history keeps one at each version it keeps).
    private func checkpoint(at version: Int, of id: UUID) async throws -> StoredDocument? {
        guard let found = try await store.checkpoint(of: id, atOrBefore: version), found.version == version else {
            return nil
        }
        return found
    }

    /// The patch that turns `before` into `after` by replacing every emoji.
    static func replacing(_ before: EmojiArtDocument, with after: EmojiArtDocument) -> DocumentPatch {
        DocumentPatch(
            title: after.title, background: after.background, removedIDs: before.emojis.ids,
            inserted: after.emojis.enumerated().map { PlacedEmoji(index: $0.offset, emoji: $0.element) },
            nextEmojiID: after.nextEmojiID)
    }

    /// The oldest version that can be read, at most `version`: 0 unless history was thinned.
    public func oldestVersion(of id: UUID, through version: Int) async throws -> Int {
        if try await store.checkpoint(of: id, atOrBefore: 0) != nil { return 0 }
        var low = 1
        while low <= version {
            let high = min(version, low + HistoryRetention.chunk - 1)
            if let first = try await store.logEntries(of: id, in: low...high).first {
                // A thinned history keeps a checkpoint at each version it keeps.
                return try await store.checkpoint(of: id, atOrBefore: first.version)?.version ?? first.version
            }
            low = high + 1
        }
        return version
    }

    /// The document at each of `versions` (ascending), read by folding the log once from the
    /// first: a replay's frames. A version thinned away shows the one kept before it. Nil if
    /// the first can't be read.
    public func documents(of id: UUID, at versions: [Int]) async throws -> [StoredDocument]? {
        guard let first = versions.first, var current = try await document(id: id, at: first) else { return nil }
        var result = [current]
        var wanted = versions.dropFirst()[...]
        var low = first + 1
        while let last = wanted.last, low <= last {
            let high = min(last, low + HistoryRetention.chunk - 1)
            for entry in try await store.logEntries(of: id, in: low...high) {
                if entry.version != current.version + 1 {
                    guard let kept = try await checkpoint(at: entry.version, of: id) else { return nil }
                    while let want = wanted.first, want < kept.version {
                        result.append(current)
                        wanted = wanted.dropFirst()
                    }
                    current = kept
                } else {
                    try current.fold(entry)
                }
                while let want = wanted.first, want <= current.version {
                    result.append(current)
                    wanted = wanted.dropFirst()
                }
            }
            low = high + 1
        }
        return wanted.isEmpty ? result : nil
    }
}
