import EmojiArtKit
import Foundation

/// Reads a document's past from any ``DocumentStore``: a version is the newest checkpoint at or
/// before it with the log entries after that checkpoint folded in, so reading one costs at most
/// the checkpoint interval in steps (``HistoryReader/checkpointInterval``).
public struct HistoryReader: Sendable {
    /// A checkpoint is kept at every multiple of this version (the live library writes them as
    /// documents pass them; see ``writeCheckpoints(of:through:)``).
    public static let defaultCheckpointInterval = 500

    public let store: any DocumentStore
    public let checkpointInterval: Int

    public init(store: any DocumentStore, checkpointInterval: Int = HistoryReader.defaultCheckpointInterval) {
        self.store = store
        self.checkpointInterval = max(1, checkpointInterval)
    }

    /// The document as it was at `version`, or nil if that version can't be read: the document
    /// is gone, never had it, or it was thinned away (``HistoryRetention``).
    public func document(id: UUID, at version: Int) async throws -> StoredDocument? {
        guard version >= 0, let base = try await store.checkpoint(of: id, atOrBefore: version) else { return nil }
        guard base.version < version else { return base }
        let entries = try await store.logEntries(of: id, in: (base.version + 1)...version)
        guard entries.count == version - base.version, entries.last?.version == version else { return nil }
        return try base.folding(entries)
    }

    /// Saves a checkpoint at every multiple of ``checkpointInterval`` after the newest one, up
    /// to `version`, folding the log from that checkpoint. Returns the newest checkpoint's
    /// version afterwards. Cheap when there is nothing to do; several servers doing it at once
    /// write the same checkpoints, and each is kept once.
    @discardableResult
    public func writeCheckpoints(of id: UUID, through version: Int) async throws -> Int? {
        guard var current = try await store.checkpoint(of: id, atOrBefore: version) else { return nil }
        let target = version - version % checkpointInterval
        guard current.version < target else { return current.version }
        let entries = try await store.logEntries(of: id, in: (current.version + 1)...target)
        for entry in entries {
            // A gap: history is being thinned meanwhile; the next pass takes it from there.
            guard entry.version == current.version + 1 else { break }
            try current.fold(entry)
            if entry.version % checkpointInterval == 0 { try await store.saveCheckpoint(current) }
        }
        return current.version
    }
}

/// Why a past version can't be had.
public enum HistoryError: Error, Equatable, CustomStringConvertible {
    /// The document never had that version, or it was thinned away.
    case versionUnavailable(Int)

    public var description: String {
        switch self {
        case .versionUnavailable(let version):
            "version \(version) isn't in this document's history (it never existed, or old history was thinned)."
        }
    }
}
