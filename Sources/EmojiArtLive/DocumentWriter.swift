/// Who writes a live document's batches, and who waits: ``LiveDocument``'s writer decisions, as
/// a value that takes events and returns what to do, so tests drive it without tasks or a store.
///
/// Only one task at a time writes batches or reads the store for a document — "the writer" — so
/// the replica's committed state changes only between its decisions. The first caller to arrive
/// while nobody writes becomes the writer; later callers wait for their ticket's outcome. When
/// the writer's own ticket is settled it hands the writing on: to a waiting caller whose operation
/// is staged, else it writes what is staged itself, else it catches up with other servers if
/// that was asked for meanwhile, else it stops — and whoever waited for it to stop goes on.
///
/// Waiters are numbers the value hands out; the document keeps their continuations.
struct DocumentWriter: Sendable, Equatable {
    typealias Ticket = DocumentReplica.Ticket
    typealias Waiter = UInt64

    enum Role: Sendable, Equatable {
        case idle
        /// A task writes (or reads the store to catch up); `catchUpWanted`: another server's
        /// change was heard meanwhile, so catch up before stopping.
        case writing(catchUpWanted: Bool)
    }

    private(set) var role = Role.idle
    /// Callers waiting for their tickets' outcomes, in arrival order (a resent request joins its
    /// original's ticket).
    private var waiting: [Ticket: [Waiter]] = [:]
    /// Callers waiting for the writer to stop (to catch up before submitting).
    private var waitingForIdle: [Waiter] = []
    private var lastWaiter: Waiter = 0

    var isWriting: Bool { role != .idle }

    /// How many callers wait for an outcome (for tests).
    var waiterCount: Int { waiting.values.reduce(0) { $0 + $1.count } }

    // MARK: Events

    enum Arrival: Sendable, Equatable {
        /// Become the writer: write batches until the ticket is settled.
        case write
        /// Wait: the waiter hears its outcome, or ``HandOver/handTo(_:)`` makes it the writer.
        case wait(Waiter)
    }

    /// A caller whose operation is staged under `ticket` wants its outcome.
    mutating func arrive(for ticket: Ticket) -> Arrival {
        guard isWriting else {
            role = .writing(catchUpWanted: false)
            return .write
        }
        let waiter = newWaiter()
        waiting[ticket, default: []].append(waiter)
        return .wait(waiter)
    }

    /// Another server's change was heard: true if the caller should catch up now (it is the
    /// writer until it hands over); false if the writer will before it stops.
    mutating func catchUpHeard() -> Bool {
        guard isWriting else {
            role = .writing(catchUpWanted: false)
            return true
        }
        wantCatchUp()
        return false
    }

    /// The writer read other servers' entries while writing (a conflict): a notification judged
    /// against the batch then in flight may be stale, so read once more before stopping.
    mutating func wantCatchUp() {
        if isWriting { role = .writing(catchUpWanted: true) }
    }

    enum CatchUp: Sendable, Equatable {
        /// Catch up now, as the writer.
        case now
        /// Wait for the writer to stop, then ask again.
        case afterIdle(Waiter)
    }

    /// A caller must catch up before it can submit (it saw a newer version than this copy's).
    mutating func catchUpBeforeSubmitting() -> CatchUp {
        guard isWriting else {
            role = .writing(catchUpWanted: false)
            return .now
        }
        let waiter = newWaiter()
        waitingForIdle.append(waiter)
        return .afterIdle(waiter)
    }

    /// Tickets were settled: the waiters to tell, each with its ticket.
    mutating func settled(_ tickets: some Sequence<Ticket>) -> [(waiter: Waiter, ticket: Ticket)] {
        tickets.flatMap { ticket in (waiting.removeValue(forKey: ticket) ?? []).map { ($0, ticket) } }
    }

    /// The copy closed: every waiter to tell, each with its ticket.
    mutating func failAll() -> [(waiter: Waiter, ticket: Ticket)] {
        let all = waiting.flatMap { ticket, waiters in waiters.map { ($0, ticket) } }
        waiting = [:]
        return all
    }

    enum HandOver: Sendable, Equatable {
        /// Make this waiter the writer (its operation is staged) and return.
        case handTo(Waiter)
        /// Write what is staged (no caller waits for it), then ask again.
        case writeStaged
        /// Read other servers' entries, then ask again.
        case catchUp
        /// Stop writing: these waited for that. (If the copy closed, tell every waiter first:
        /// ``failAll()``.)
        case stop(idle: [Waiter])
    }

    /// The writer is done with its own ticket (or its catch-up): what next.
    /// - Parameters:
    ///   - staged: the staged operations' tickets, oldest first.
    ///   - replicaIdle: nothing is staged or in flight.
    ///   - closed: the copy closed.
    mutating func handOver(staged: some Sequence<Ticket>, replicaIdle: Bool, closed: Bool) -> HandOver {
        if !closed {
            if let next = staged.first(where: { waiting[$0]?.isEmpty == false }) {
                let writer = waiting[next]!.removeFirst()
                if waiting[next]?.isEmpty == true { waiting[next] = nil }
                return .handTo(writer)
            }
            if !replicaIdle { return .writeStaged }
            if role == .writing(catchUpWanted: true) {
                role = .writing(catchUpWanted: false)
                return .catchUp
            }
        }
        role = .idle
        defer { waitingForIdle = [] }
        return .stop(idle: waitingForIdle)
    }

    private mutating func newWaiter() -> Waiter {
        lastWaiter += 1
        return lastWaiter
    }
}
