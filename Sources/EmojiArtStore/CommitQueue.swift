import Metrics

/// The one commit queue: every open document's log appends go through it, and appends that
/// arrive while the store is busy — from any documents — share the next write, one transaction
/// for all (``DocumentStore/append(_:)``): with SQLite's `synchronous = FULL`, one fsync for many
/// documents' changes; with PostgreSQL, one commit (its cost, not the statements', is what a
/// busy database spends most on: docs/PERFORMANCE.md). Each document has at most one batch in
/// flight (its replica stages what comes meanwhile), so the queue never holds two appends of
/// one document, and two writes in flight never share a document.
///
/// The store says how many writes it takes at once (``DocumentStore/concurrentAppends``): SQLite
/// one, PostgreSQL a few, so that one write waiting for a row lock doesn't hold up every other
/// document. While fewer are in flight, an append is written at once, alone; when all are busy,
/// appends gather for the next free writer. Gathering grows with the load: the busier the
/// database, the more each commit carries.
///
/// The queue writes on tasks of its own while there is work, so a caller that is cancelled
/// never fails the appends it shares a transaction with: its own append still completes, and
/// the caller hears how.
public actor CommitQueue {
    private struct Waiting {
        var append: LogAppend
        var continuation: CheckedContinuation<Void, any Error>
    }

    private let store: any DocumentStore
    private let writers: Int
    private var queue: [Waiting] = []
    /// How many writes are in flight (at most `writers`).
    private var writing = 0
    /// How many writes, and how many appends they carried (for tests and metrics).
    public private(set) var writes = 0
    public private(set) var appends = 0

    public init(store: any DocumentStore) {
        self.store = store
        self.writers = max(1, store.concurrentAppends)
    }

    /// Appends `append` with whatever else is waiting; throws this append's own failure.
    public func commit(_ append: LogAppend) async throws {
        guard !append.entries.isEmpty else { return }
        try await withCheckedThrowingContinuation { continuation in
            queue.append(Waiting(append: append, continuation: continuation))
            if writing < writers {
                writing += 1
                Task { await self.drain() }
            }
        }
    }

    /// One writer: writes what is waiting, together, until nothing is.
    private func drain() async {
        while !queue.isEmpty {
            let batch = queue
            queue = []
            writes += 1
            appends += batch.count
            do {
                let started = ContinuousClock.now
                defer { Self.record(batch: batch.count, since: started) }
                let results = try await store.append(batch.map(\.append))
                guard results.count == batch.count else {
                    throw StoreError.corrupt("the store answered \(results.count) of \(batch.count) appends")
                }
                for (waiting, result) in zip(batch, results) { waiting.continuation.resume(with: result) }
            } catch {
                for waiting in batch { waiting.continuation.resume(throwing: error) }
            }
        }
        writing -= 1
    }

    /// How many appends each write carried, and how long it took (`/metrics`).
    private static let batchSizes = Recorder(label: "emojiart_commit_batch_size")
    private static let commitDuration = Metrics.Timer(label: "emojiart_commit_duration_seconds")

    private static func record(batch: Int, since started: ContinuousClock.Instant) {
        batchSizes.record(batch)
        let elapsed = (ContinuousClock.now - started).components
        commitDuration.recordNanoseconds(elapsed.seconds * 1_000_000_000 + elapsed.attoseconds / 1_000_000_000)
    }
}
