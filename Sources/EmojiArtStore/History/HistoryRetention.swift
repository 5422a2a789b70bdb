import EmojiArtKit
import Foundation

/// Thins old history (`serve --history-days D`): of the versions older than `days` days, only
/// the last of each day (UTC) stays, as a checkpoint with its log entry, so the History panel
/// still lists it and it can still be read, previewed and restored; the versions between them
/// are gone. Versions from the last `days` days are never touched. The snapshot a copy opens
/// from moves up to the cut if it was behind it (undo then reaches back no further than the
/// cut after a restart). Without the option the whole log is kept.
public struct HistoryRetention: Sendable {
    public let days: Int
    public let reader: HistoryReader
    /// Log entries read at a time while looking for each day's last version.
    static let chunk = 2_000

    public init(days: Int, reader: HistoryReader) {
        self.days = max(0, days)
        self.reader = reader
    }

    /// The versions older than `cutoff` to keep: the last of each UTC day.
    public static func dailyVersions(_ entries: [(version: Int, date: Date)]) -> [Int] {
        var lastOfDay: [Int: Int] = [:]
        for entry in entries {
            let day = Int((entry.date.timeIntervalSince1970 / 86_400).rounded(.down))
            lastOfDay[day] = max(lastOfDay[day] ?? entry.version, entry.version)
        }
        return lastOfDay.values.sorted()
    }

    /// Thins one document's history as of `now`. Returns how many versions it removed.
    @discardableResult
    public func thin(_ id: UUID, now: Date) async throws -> Int {
        let store = reader.store
        let cutoff = now.addingTimeInterval(-Double(days) * 86_400)
        guard let newest = try await store.recentLogEntries(of: id, through: .max, limit: 1).first?.version else {
            return 0
        }
        var old: [(version: Int, date: Date)] = []
        var low = 0
        scan: while low <= newest {
            let high = min(newest, low + Self.chunk - 1)
            for entry in try await store.logEntries(of: id, in: low...high) {
                guard entry.date < cutoff else { break scan }
                old.append((entry.version, entry.date))
            }
            low = high + 1
        }
        guard let cut = old.last?.version else { return 0 }
        let keep = Self.dailyVersions(old)
        for version in keep where try await store.checkpoint(of: id, atOrBefore: version)?.version != version {
            guard let document = try await reader.document(id: id, at: version) else { return 0 }
            try await store.saveCheckpoint(document)
        }
        if let snapshot = try await store.loadDocument(id: id)?.snapshot, snapshot.version < cut,
            let atCut = try await store.checkpoint(of: id, atOrBefore: cut), atCut.version == cut
        {
            try await store.saveSnapshot(atCut)
        }
        try await store.dropHistory(of: id, through: cut, keeping: Set(keep))
        return old.count - keep.count
    }
}
