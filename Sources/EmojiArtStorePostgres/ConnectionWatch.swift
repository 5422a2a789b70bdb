import NIOCore
import PostgresNIO
import Synchronization

extension PostgresConnection {
    /// Runs `body` with this connection, and ends with ``ChannelError/ioOnClosedChannel`` as soon
    /// as the connection closes, whatever `body` is still waiting for.
    ///
    /// postgres-nio (1.33) leaves a query waiting for ever when its connection closes under it:
    /// PostgreSQL stopped or restarted mid-query, a query written to a channel that is already
    /// closed is dropped with the promise its caller waits on. A document's writer waiting there
    /// held every later edit of that document, and the change listener waiting there heard
    /// nothing more (`emojiart-bench fleet` found it; `PostgresStoreTests` reproduces it). So
    /// every wait on a connection goes through here: a lost connection fails what waited on it
    /// — a 503, retried — and what it waited for is left behind, finished or not.
    ///
    /// Cancelling the caller cancels `body`, and waits for it: a leased connection goes back to
    /// the pool only when nothing runs on it any more.
    func whileOpen<Value: Sendable>(
        _ body: @escaping @Sendable (PostgresConnection) async throws -> Value
    ) async throws -> Value {
        let answer = OneAnswer<Value>()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                answer.wait(continuation)
                closeFuture.whenComplete { _ in answer.give(.failure(ChannelError.ioOnClosedChannel)) }
                answer.run(
                    Task {
                        do {
                            answer.give(.success(try await body(self)))
                        } catch {
                            answer.give(.failure(error))
                        }
                    })
            }
        } onCancel: {
            answer.cancel()
        }
    }
}

/// The first of two outcomes (the work's, the connection closing) for one waiting caller.
private final class OneAnswer<Value: Sendable>: Sendable {
    private struct State {
        var continuation: CheckedContinuation<Value, any Error>?
        var work: Task<Void, Never>?
        var cancelled = false
    }

    private let state = Mutex(State())

    func wait(_ continuation: CheckedContinuation<Value, any Error>) {
        state.withLock { $0.continuation = continuation }
    }

    func run(_ work: Task<Void, Never>) {
        let cancelled = state.withLock {
            $0.work = work
            return $0.cancelled
        }
        if cancelled { work.cancel() }
    }

    func give(_ outcome: Result<Value, any Error>) {
        state.withLock { $0.continuation.take() }?.resume(with: outcome)
    }

    func cancel() {
        let work = state.withLock {
            $0.cancelled = true
            return $0.work
        }
        work?.cancel()
    }
}
