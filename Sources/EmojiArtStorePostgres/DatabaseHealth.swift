import EmojiArtStore
import Foundation
import Logging
import PostgresNIO
import Synchronization

/// Whether PostgreSQL is reachable, so that while it isn't, every query fails at once with
/// ``StoreError/unavailable(_:)`` (`503`) instead of waiting for a connection the pool keeps
/// retrying — and the server recovers by itself when it is back.
///
/// The database is marked down when a connection fails or is lost (a query's, or the `LISTEN`
/// connection's, which notices first: PostgreSQL closing it is how a restart or a failover
/// shows). From then a probe — a fresh connection and `SELECT 1`, every quarter second — marks
/// it up again as soon as it answers.
final class DatabaseHealth: Sendable {
    private enum State {
        case up
        case down(reason: String, probing: Bool)
    }

    private let state = Mutex(State.up)
    private let probe: @Sendable () async throws -> Void
    private let logger: Logger
    /// How often a probe asks while the database is down.
    static let probeInterval = Duration.milliseconds(250)

    init(logger: Logger, probe: @escaping @Sendable () async throws -> Void) {
        self.logger = logger
        self.probe = probe
    }

    /// Throws ``StoreError/unavailable(_:)`` while the database is down.
    func check() throws {
        let reason: String? = state.withLock {
            if case .down(let reason, _) = $0 { reason } else { nil }
        }
        if let reason { throw StoreError.unavailable("PostgreSQL can't be reached (\(reason)); try again in a moment") }
    }

    var isUp: Bool { state.withLock { if case .up = $0 { true } else { false } } }

    /// Notes a failure: if it is one of reaching the database, marks it down (starting a probe).
    /// Returns the error to throw: ``StoreError/unavailable(_:)`` for such a failure.
    func noting(_ error: any Error) -> any Error {
        guard let reason = Self.connectionFailure(error) else { return error }
        markDown(reason)
        return StoreError.unavailable("PostgreSQL can't be reached (\(reason)); try again in a moment")
    }

    func markDown(_ reason: String) {
        let startProbe: Bool = state.withLock {
            switch $0 {
            case .up:
                $0 = .down(reason: reason, probing: true)
                return true
            case .down(_, let probing):
                $0 = .down(reason: reason, probing: true)
                return !probing
            }
        }
        guard startProbe else { return }
        logger.warning("PostgreSQL can't be reached (\(reason)); answering 503 until it is back")
        Task { await self.probeUntilUp() }
    }

    func markUp() {
        let wasDown: Bool = state.withLock { state in
            defer { state = .up }
            if case .down = state { return true }
            return false
        }
        if wasDown { logger.notice("PostgreSQL answers again") }
    }

    private func probeUntilUp() async {
        while !isUp {
            try? await Task.sleep(for: Self.probeInterval)
            do {
                try await probe()
                markUp()
                return
            } catch {
                continue
            }
        }
    }

    /// Why `error` is a failure to reach the database (a lost or refused connection, the server
    /// shutting down), or nil for any other error (a constraint, a bad query).
    static func connectionFailure(_ error: any Error) -> String? {
        if let error = error as? PostgresTransactionError {
            return connectionFailure(error.closureError ?? error.commitError ?? error.beginError ?? error)
        }
        if let error = error as? PSQLError {
            switch error.code {
            case .connectionError, .serverClosedConnection, .clientClosedConnection, .uncleanShutdown, .poolClosed:
                return error.underlying.map { String(describing: $0) } ?? "\(error.code)"
            case .server:
                // Class 08 (connection exception) and 57 (operator intervention: shutdown, restart).
                guard let state = error.serverInfo?[.sqlState], state.hasPrefix("08") || state.hasPrefix("57") else {
                    return nil
                }
                return error.serverInfo?[.message] ?? state
            default:
                return nil
            }
        }
        if error is ChannelError || error is IOError { return String(describing: error) }
        if let error = error as? NIOConnectionError { return String(describing: error) }
        return nil
    }
}
