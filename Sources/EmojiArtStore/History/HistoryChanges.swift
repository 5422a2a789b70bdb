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

    /// Up to `limit` changes after `version` and through `newest` (the document's version now),
    /// in order. Where history was thinned, the next version kept comes as a change that
    /// `follows` the last one and replaces everything, however far away it is. Nil if `version`
    /// can't be read.
    public func changes(of id: UUID, after version: Int, through newest: Int, limit: Int) async throws -> [Change]? {
        guard var current = try await document(id: id, at: version) else { return nil }
        let limit = max(1, limit)
        var changes: [Change] = []
        var low = version + 1
        while changes.count < limit, low <= newest {
            // Read by count where history is whole; a thinned gap takes more reads, never fewer changes.
            let high = min(newest, low + max(limit - changes.count, HistoryRetention.chunk) - 1)
            for entry in try await store.logEntries(of: id, in: low...high) {
                guard changes.count < limit else { break }
                if entry.version != current.version + 1 {
                    guard let kept = try await checkpoint(at: entry.version, of: id) else { return changes }
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
                            edits: entry.edits, firstNewID: firstNewID, after: current.document,
                            idsBefore: idsBefore),
                        follows: nil))
            }
            low = high + 1
        }
        return changes
    }

    /// Where each of the emojis `emojiIDs` was last between `version` and `newest`: its place in
    /// the newest of those versions that has it (none for one that no version has). One fold of
    /// the log serves them all. A comment pinned to an emoji stays where the emoji was when it is
    /// deleted. Empty if `version` can't be read.
    public func lastPlaces(of emojiIDs: Set<Int>, in id: UUID, from version: Int, through newest: Int) async throws
        -> [Int: Point]
    {
        guard !emojiIDs.isEmpty, let first = try await document(id: id, at: version) else { return [:] }
        var places: [Int: Point] = [:]
        func look(_ current: StoredDocument) {
            for emojiID in emojiIDs {
                if let found = current.document.emojis[id: emojiID]?.position { places[emojiID] = found }
            }
        }
        look(first)
        _ = try await advance(first, of: id, to: newest, visit: look)
        return places
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

    /// The oldest version that can be read, at most `version`: 0 unless history was thinned
    /// (which keeps a checkpoint at each version it keeps).
    public func oldestVersion(of id: UUID, through version: Int) async throws -> Int {
        min(version, try await store.oldestCheckpointVersion(of: id) ?? version)
    }

    /// The document at each of `versions` (ascending): a replay's frames. Versions near each
    /// other are read by folding the log once from the first; one more than a checkpoint
    /// interval past the last is read from its checkpoint instead. A version thinned away shows
    /// the one kept before it. Nil if the first can't be read.
    public func documents(of id: UUID, at versions: [Int]) async throws -> [StoredDocument]? {
        guard let first = versions.first, var current = try await document(id: id, at: first) else { return nil }
        var result = [current]
        for want in versions.dropFirst() {
            if want - current.version > checkpointInterval, let read = try await document(id: id, at: want) {
                current = read
            } else {
                guard let advanced = try await advance(current, of: id, to: want) else { return nil }
                current = advanced
            }
            result.append(current)
        }
        return result
    }

    /// `document` with the log folded in up to `version`, stepping over thinned gaps to the
    /// versions kept; it stops at the newest version at or before `version`, and `visit` sees
    /// each version it passes. Nil if a version kept has no checkpoint.
    private func advance(
        _ document: StoredDocument, of id: UUID, to version: Int, visit: (StoredDocument) -> Void = { _ in }
    ) async throws -> StoredDocument? {
        var current = document
        var low = current.version + 1
        while low <= version {
            let high = min(version, low + HistoryRetention.chunk - 1)
            for entry in try await store.logEntries(of: id, in: low...high) {
                if entry.version != current.version + 1 {
                    guard let kept = try await checkpoint(at: entry.version, of: id) else { return nil }
                    current = kept
                } else {
                    try current.fold(entry)
                }
                visit(current)
            }
            low = high + 1
        }
        return current
    }
}
