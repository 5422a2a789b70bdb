/// Gathers work that arrives while a write is in progress into the next write: the first caller
/// writes its own item; callers arriving meanwhile queue, and one of them writes them all at once
/// when the write in progress ends. Each caller gets its own item's result.
package actor GroupCommit<Item: Sendable> {
    private struct Waiting {
        var item: Item
        var continuation: CheckedContinuation<Void, any Error>
    }

    private var queue: [Waiting] = []
    private var isWriting = false

    package init() {}

    /// Writes `item` (with whatever else is waiting) through `write`, which returns one result
    /// per item in order, or throws to fail them all.
    package func submit(
        _ item: Item, write: @escaping @Sendable ([Item]) async throws -> [Result<Void, any Error>]
    ) async throws {
        try await withCheckedThrowingContinuation { continuation in
            queue.append(Waiting(item: item, continuation: continuation))
            if !isWriting {
                isWriting = true
                Task { await self.drain(write) }
            }
        }
    }

    private func drain(_ write: @Sendable ([Item]) async throws -> [Result<Void, any Error>]) async {
        while !queue.isEmpty {
            let batch = queue
            queue = []
            do {
                let results = try await write(batch.map(\.item))
                for (waiting, result) in zip(batch, results) { waiting.continuation.resume(with: result) }
            } catch {
                for waiting in batch { waiting.continuation.resume(throwing: error) }
            }
        }
        isWriting = false
    }
}
