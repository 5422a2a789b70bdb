/// The one commit queue: every open document's log appends go through it, and appends that
/// arrive while a write is in progress — from any documents — share the next one, one
/// transaction for all (``DocumentStore/append(_:)``: with SQLite's `synchronous = FULL`, one
/// fsync for many documents' changes). Each document has at most one batch in flight (its
/// replica stages what comes meanwhile), so the queue never holds two appends of one document.
///
/// The queue writes on a task of its own while there is work, so a caller that is cancelled
/// never fails the appends it shares a transaction with: its own append still completes, and
/// the caller hears how.
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
                let results = try await store.append(batch.map(\.append))
                for (waiting, result) in zip(batch, results) { waiting.continuation.resume(with: result) }
            } catch {
                for waiting in batch { waiting.continuation.resume(throwing: error) }
            }
        }
        isWriting = false
    }
}
