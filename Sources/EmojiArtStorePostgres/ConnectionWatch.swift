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
    /// held every later edit of that document, and the change listener's handler waiting there
    /// stopped the instance hearing changes (`emojiart-bench fleet` found it;
    /// `PostgresStoreTests` reproduces it). So every query waits through here: a lost connection
    /// fails what waited on it — a 503, retried — and what it waited for is left behind, finished
    /// or not (with what it holds: one statement's binds per query lost so).
    ///
    /// Cancelling the caller cancels `body`, and waits for it: a leased connection goes back to
    /// the pool only when nothing runs on it any more.
    func whileOpen<Value: Sendable>(
        watchedBy watch: ConnectionWatch, _ body: @escaping @Sendable (PostgresConnection) async throws -> Value
    ) async throws -> Value {
        let answer = OneAnswer<Value>()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                answer.wait(continuation)
                guard let waiting = watch.onClose(of: self, { answer.give(.failure(ChannelError.ioOnClosedChannel)) })
                else {
                    answer.give(.failure(ChannelError.ioOnClosedChannel))
                    return
                }
                answer.run(
                    Task {
                        let outcome: Result<Value, any Error>
                        do {
                            outcome = .success(try await body(self))
                        } catch {
                            outcome = .failure(error)
                        }
                        watch.forget(waiting)
                        answer.give(outcome)
                    })
            }
        } onCancel: {
            answer.cancel()
        }
    }
}

/// A database's connections' closes, each watched once however many queries wait on it (NIO
/// keeps every callback on a future until it completes, and a pooled connection lives for
/// hours): whoever waits on a connection when it closes hears it.
final class ConnectionWatch: Sendable {
    /// One wait on one connection's close.
    struct Waiting {
        fileprivate let connection: ObjectIdentifier
        fileprivate let number: UInt64
    }

    private struct Watched {
        /// Held until it closes, so that its identifier can't be another's meanwhile.
        let connection: PostgresConnection
        var waiting: [UInt64: @Sendable () -> Void] = [:]
    }

    private struct State {
        var next: UInt64 = 0
        /// The connections watched, until they close.
        var watched: [ObjectIdentifier: Watched] = [:]
    }

    private let state = Mutex(State())

    /// Calls `closed` when `connection` closes, unless ``forget(_:)`` comes first; nil if it
    /// is closed already.
    func onClose(of connection: PostgresConnection, _ closed: @escaping @Sendable () -> Void) -> Waiting? {
        guard !connection.isClosed else { return nil }
        let key = ObjectIdentifier(connection)
        let (waiting, first) = state.withLock { state in
            state.next += 1
            let first = state.watched[key] == nil
            state.watched[key, default: Watched(connection: connection)].waiting[state.next] = closed
            return (Waiting(connection: key, number: state.next), first)
        }
        if first {
            // Runs at once if the connection closed meanwhile.
            connection.closeFuture.whenComplete { _ in
                let watched = self.state.withLock { $0.watched.removeValue(forKey: key) }
                for closed in (watched?.waiting ?? [:]).values { closed() }
            }
        }
        return waiting
    }

    func forget(_ waiting: Waiting) {
        state.withLock { _ = $0.watched[waiting.connection]?.waiting.removeValue(forKey: waiting.number) }
    }

    /// How many connections are watched, and how many waits on them there are (for tests).
    var count: (connections: Int, waits: Int) {
        state.withLock { ($0.watched.count, $0.watched.values.reduce(0) { $0 + $1.waiting.count }) }
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
        let continuation = state.withLock {
            $0.work = nil
            return $0.continuation.take()
        }
        continuation?.resume(with: outcome)
    }

    func cancel() {
        let work = state.withLock {
            $0.cancelled = true
            return $0.work
        }
        work?.cancel()
    }
}
