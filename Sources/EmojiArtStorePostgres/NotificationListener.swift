import Logging
import NIOCore
import PostgresNIO
import Synchronization

/// One `LISTEN` connection for every channel a server follows (changes, broadcasts), while
/// anyone follows one. PostgreSQL (before 19) wakes every backend listening on a database for
/// every notification, whatever its channel: each listening connection costs every commit of
/// every server a wake-up, so a server keeps one, not one per channel.
///
/// Each follower hears its channel's payloads, in order, from a stream of its own: nil first
/// when listening starts (again), since whatever was notified meanwhile was not heard. The
/// handlers run in the followers' tasks, never in the listening loop, so a slow handler never
/// keeps the loop from noticing its connection close.
final class NotificationListener: Sendable {
    private struct Follower {
        var channel: String
        var continuation: AsyncStream<String?>.Continuation
    }

    private struct State {
        var next: UInt64 = 0
        var followers: [UInt64: Follower] = [:]
        /// Whether LISTEN holds on the current connection (a newcomer is told so at once).
        var listening = false
        var loop: Task<Void, Never>?
        /// Which loop is the current one: one that was stopped (its followers gone) and is
        /// still ending tells no one anything.
        var generation: UInt64 = 0
    }

    private let channels: [String]
    private let connect: @Sendable () async throws -> PostgresConnection
    private let health: DatabaseHealth
    private let logger: Logger
    private let state = Mutex(State())

    /// - Parameters:
    ///   - channels: every channel anyone may follow, listened to together.
    ///   - connect: a connection of the listener's own.
    init(
        channels: [String], health: DatabaseHealth, logger: Logger,
        connect: @escaping @Sendable () async throws -> PostgresConnection
    ) {
        self.channels = channels
        self.health = health
        self.logger = logger
        self.connect = connect
    }

    /// Hands `handle` each payload on `channel`, until the calling task is cancelled; nil when
    /// listening starts (again).
    func follow(_ channel: String, _ handle: @Sendable (String?) async -> Void) async {
        precondition(channels.contains(channel), "\(channel) is not listened to")
        let (stream, continuation) = AsyncStream.makeStream(of: String?.self)
        let id: UInt64 = state.withLock { state in
            state.next += 1
            state.followers[state.next] = Follower(channel: channel, continuation: continuation)
            if state.listening { continuation.yield(nil) }
            if state.loop == nil {
                state.generation += 1
                state.listening = false
                let generation = state.generation
                state.loop = Task { await self.listen(generation) }
            }
            return state.next
        }
        defer {
            continuation.finish()
            let loop: Task<Void, Never>? = state.withLock { state in
                state.followers[id] = nil
                guard state.followers.isEmpty else { return nil }
                defer { state.loop = nil }
                return state.loop
            }
            loop?.cancel()
        }
        for await payload in stream { await handle(payload) }
    }

    /// Hands `payload` to the followers of `channel`; nil (listening started) to all of them.
    private func deliver(_ channel: String?, _ payload: String?, from generation: UInt64) {
        state.withLock { state in
            guard state.generation == generation else { return }
            if channel == nil { state.listening = true }
            for follower in state.followers.values where channel == nil || follower.channel == channel {
                follower.continuation.yield(payload)
            }
        }
    }

    /// Listens on every channel on a connection of its own until cancelled. A lost connection
    /// is retried after 0.1 … 5 s.
    private func listen(_ generation: UInt64) async {
        var delay = Duration.milliseconds(100)
        while !Task.isCancelled {
            do {
                let session = try await connect()
                health.markUp()
                delay = .milliseconds(100)
                do {
                    try await withTaskCancellationHandler {
                        // Not through `whileOpen`: a listener whose LISTEN can't be written
                        // fails, and the notifications end when the connection closes.
                        try await listen(on: channels[...], session: session, generation: generation)
                    } onCancel: {
                        // Ends the wait for the next notification.
                        let closing: EventLoopFuture<Void> = session.close()
                        _ = closing
                    }
                } catch {
                    stoppedListening(generation)
                    // A connection is closed whichever way listening ends (the server went
                    // away, the task was cancelled), never left to be dropped open.
                    try? await session.close()
                    throw error
                }
                stoppedListening(generation)
                try? await session.close()
            } catch {
                guard !Task.isCancelled else { break }
                // Usually the first to notice the database going away: from now on queries fail
                // fast until it answers again.
                _ = health.noting(error)
                logger.warning(
                    "Listening on \(channels.joined(separator: ", ")) failed (\(PostgreSQLDatabase.describe(error))); retrying"
                )
            }
            try? await Task.sleep(for: delay)
            delay = min(delay * 2, .seconds(5))
        }
    }

    private func stoppedListening(_ generation: UInt64) {
        state.withLock { state in
            if state.generation == generation { state.listening = false }
        }
    }

    /// LISTENs on each of `channels`, one inside the other, then reads them all until one ends.
    private func listen(
        on channels: ArraySlice<String>, session: PostgresConnection, generation: UInt64,
        heard sequences: [(String, PostgresNotificationSequence)] = []
    ) async throws {
        guard let channel = channels.first else {
            deliver(nil, nil, from: generation)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for (channel, notifications) in sequences {
                    group.addTask {
                        for try await notification in notifications {
                            self.deliver(channel, notification.payload, from: generation)
                        }
                    }
                }
                // Whichever ends first (the connection closing ends them all) ends listening.
                try await group.next()
                group.cancelAll()
            }
            return
        }
        try await session.listen(on: channel) { notifications in
            try await listen(
                on: channels.dropFirst(), session: session, generation: generation,
                heard: sequences + [(channel, notifications)])
        }
    }
}
