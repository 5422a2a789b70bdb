import Metrics

/// The one commit queue: every open document's log appends go through it, and appends that
/// arrive while a write is in progress — from any documents — share the next one, one
/// transaction for all (``DocumentStore/append(_:)``: with SQLite's `synchronous = FULL`, one
/// fsync for many documents' changes). Each document has at most one batch in flight (its
/// replica stages what comes meanwhile), so the queue never holds two appends of one document.
///
/// The queue writes on a task of its own while there is work, so a caller that is cancelled
/// never fails the appends it shares a transaction with: its own append still completes, and
/// the caller hears how.
///
/// A store that gains nothing from gathering (``DocumentStore/gathersAppends`` is false:
/// PostgreSQL, which commits each append on a pooled connection of its own) has each append
/// written at once, on a task of the queue's, so one document's append waiting for a row lock
/// never holds up another's.
public actor CommitQueue {
    private struct Waiting {
        var append: LogAppend
        var continuation: CheckedContinuation<Void, any Error>
    }

    private let store: any DocumentStore
    private var queue: [Waiting] = []
    private var isWriting = false
    /// How many writes, and how many appends they carried (for tests and metrics).
    public private(set) var writes = 0
    public private(set) var appends = 0

    public init(store: any DocumentStore) {
        self.store = store
    }

    /// Appends `append` with whatever else is waiting; throws this append's own failure.
    public func commit(_ append: LogAppend) async throws {
        guard !append.entries.isEmpty else { return }
        guard store.gathersAppends else {
            let store = self.store
            writes += 1
            appends += 1
            let started = ContinuousClock.now
            let results = try await Task { try await store.append([append]) }.value
            Self.record(batch: 1, since: started)
            guard let result = results.first else { throw StoreError.corrupt("the store answered no append") }
            return try result.get()
        }
        try await withCheckedThrowingContinuation { continuation in
            queue.append(Waiting(append: append, continuation: continuation))
            if !isWriting {
                isWriting = true
                Task { await self.drain() }
            }
        }
    }

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
        isWriting = false
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
