import EmojiArtStore

/// Tells a live connection, before it applies a message, whether anything was revoked since it
/// last checked its grant — on any server sharing the database, including a revocation whose
/// command returned a moment ago. Each answer comes from a read of the store's revocation count
/// (``RevocationStore``) that *started after* the caller asked, so a revocation committed before
/// the message arrived is always seen; the callers that ask while a read is under way share the
/// next one, so a busy server reads once per round trip, not once per message.
actor RevocationWatch {
    private let store: any RevocationStore
    /// Waiting for a read that hasn't started yet.
    private var waiting: [CheckedContinuation<Int, any Error>] = []
    private var reading = false

    init(store: any RevocationStore) {
        self.store = store
    }

    /// The revocation count, as read after this call began.
    func current() async throws -> Int {
        try await withCheckedThrowingContinuation { continuation in
            waiting.append(continuation)
            if !reading { startReading() }
        }
    }

    private func startReading() {
        reading = true
        let batch = waiting
        waiting = []
        let store = store
        Task {
            let result: Result<Int, any Error>
            do { result = .success(try await store.revocations()) } catch { result = .failure(error) }
            self.finished(batch, result)
        }
    }

    private func finished(_ batch: [CheckedContinuation<Int, any Error>], _ result: Result<Int, any Error>) {
        for continuation in batch { continuation.resume(with: result) }
        reading = false
        if !waiting.isEmpty { startReading() }
    }
}
