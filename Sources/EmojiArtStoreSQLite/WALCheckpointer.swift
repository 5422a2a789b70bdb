import GRDB
import Synchronization

/// Copies the write-ahead log into the database file from a connection of its own, every
/// ``interval``, so that no commit waits for it.
///
/// SQLite's own checkpoint runs inside the commit that takes the log past 1,000 pages: with
/// `synchronous = FULL` it copied the pages and synced the file while every commit behind it
/// waited — a stall of 10–20 ms about once a second under load, which was the whole tail of live
/// delivery (`emojiart-bench live`: p99 at 1,000 edits/s 16.8 ms with it, 4.8 ms without;
/// docs/PERFORMANCE.md). A passive checkpoint on another connection takes no lock a writer
/// needs. The writer still checkpoints for itself past ``fallbackPages`` (40 MB of log with
/// 4 KB pages), should this one fall far behind. Crash safety is SQLite's either way: a
/// committed page is in the log until it is copied.
final class WALCheckpointer: Sendable {
    static let interval: Duration = .milliseconds(500)
    /// `PRAGMA wal_autocheckpoint` of the writing connections: SQLite's own checkpoint, kept for
    /// a log this one has let grow this far.
    static let fallbackPages = 10_000

    private let connection: DatabaseQueue
    private let task = Mutex<Task<Void, Never>?>(nil)

    /// Opens its own connection to the database file at `path` (already in WAL mode) and starts.
    init(path: String) throws {
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        configuration.label = "WALCheckpointer"
        connection = try DatabaseQueue(path: path, configuration: configuration)
        let started = Task { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: Self.interval)
                guard let self else { return }
                _ = try? await self.checkpoint()
            }
        }
        task.withLock { $0 = started }
    }

    deinit {
        task.withLock { $0?.cancel() }
    }

    /// One passive checkpoint now: the log's frames, and how many of them are in the file.
    @discardableResult
    func checkpoint() async throws -> (walFrameCount: Int, checkpointedFrameCount: Int) {
        try await connection.writeWithoutTransaction { db in try db.checkpoint(.passive) }
    }
}
