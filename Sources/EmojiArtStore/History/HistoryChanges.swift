import EmojiArtKit
import Foundation

extension HistoryReader {
    /// A past change with the patch that turns the version before it into it: what the
    /// editor's History panel scrubs and replays with (the same patches live windows get).
    public struct Change: Sendable, Equatable {
        public var entry: LogEntry
        public var patch: DocumentPatch
    }

    /// Up to `limit` changes after `version`, in order; fewer where history was thinned (they
    /// stop at the first version missing). Nil if `version` can't be read.
    public func changes(of id: UUID, after version: Int, limit: Int) async throws -> [Change]? {
        guard var current = try await document(id: id, at: version) else { return nil }
        var changes: [Change] = []
        for entry in try await store.logEntries(of: id, in: (version + 1)...(version + max(1, limit))) {
            guard entry.version == current.version + 1 else { break }
            let firstNewID = current.document.nextEmojiID
            let idsBefore = DocumentPatch.needsIDsBefore(entry.edits) ? current.document.emojis.ids : nil
            try current.fold(entry)
            changes.append(
                Change(
                    entry: entry,
                    patch: DocumentPatch(
                        edits: entry.edits, firstNewID: firstNewID, after: current.document, idsBefore: idsBefore)))
        }
        return changes
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
    /// first: a replay's frames. Nil if the first can't be read; stops early at a version
    /// thinned away.
    public func documents(of id: UUID, at versions: [Int]) async throws -> [StoredDocument]? {
        guard let first = versions.first, var current = try await document(id: id, at: first) else { return nil }
        var result = [current]
        var wanted = versions.dropFirst()[...]
        var low = first + 1
        while !wanted.isEmpty {
            let high = min(wanted.last!, low + HistoryRetention.chunk - 1)
            let entries = try await store.logEntries(of: id, in: low...high)
            for entry in entries {
                guard entry.version == current.version + 1 else { return result }
                try current.fold(entry)
                while let want = wanted.first, want <= current.version {
                    if want == current.version { result.append(current) }
                    wanted = wanted.dropFirst()
                }
            }
            guard entries.count == high - low + 1 else { return result }
            low = high + 1
        }
        return result
    }
}
