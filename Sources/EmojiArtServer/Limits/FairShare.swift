import Synchronization

/// A rate of messages shared by several connections — all those from one client address, or all
/// those on one document — handed out fairly: the decision, as a value tests drive with their
/// own clock (``SharedRate`` runs it on the real one).
///
/// A ``TokenBucket`` with a queue: while tokens last and nobody waits, a message goes at once.
/// Once they run out, senders queue, and each new token goes to the waiting connection that was
/// last served longest ago: a window that sends now and then is served at the next token however
/// many connections flood, and the flooders share what is left.
struct FairShare {
    typealias Settings = RateLimit

    var settings: Settings { bucket.limit }
    private var bucket: TokenBucket
    /// The connections waiting, in arrival order.
    private var waiting: [UInt64] = []
    /// When each connection was last served (seconds on the caller's clock).
    private var lastServed: [UInt64: Double] = [:]
    /// Messages let go since ``takeGranted()`` was last asked: what this server tells the others
    /// it used of a rate they share (``RateExchange``).
    private var granted = 0

    init(_ settings: Settings, now: Double) {
        bucket = TokenBucket(settings, now: now)
    }

    var isIdle: Bool { waiting.isEmpty && lastServed.isEmpty }
    var waitingCount: Int { waiting.count }

    /// A message from `connection`: true if it may go now; false if it must wait — in the queue
    /// for ``serve(now:)`` to name it, or (`queues` false) to ask again.
    mutating func arrive(_ connection: UInt64, now: Double, queues: Bool = true) -> Bool {
        guard waiting.isEmpty, bucket.take(now: now) else {
            if queues, !waiting.contains(connection) { waiting.append(connection) }
            return false
        }
        lastServed[connection] = now
        granted += 1
        return true
    }

    /// The waiting connections whose message may go now, fairest first.
    mutating func serve(now: Double) -> [UInt64] {
        var served: [UInt64] = []
        while !waiting.isEmpty, bucket.take(now: now) {
            // Longest since last served; never served counts as longest; ties by arrival.
            var chosen = 0
            for index in waiting.indices.dropFirst()
            where lastServed[waiting[index], default: -.infinity] < lastServed[waiting[chosen], default: -.infinity] {
                chosen = index
            }
            let connection = waiting.remove(at: chosen)
            lastServed[connection] = now
            served.append(connection)
            granted += 1
        }
        return served
    }

    /// When the next token comes, if anyone waits for it.
    func nextServing(now: Double) -> Double? {
        guard !waiting.isEmpty else { return nil }
        return now + bucket.wait(now: now)
    }

    /// The messages let go since the last call.
    mutating func takeGranted() -> Int {
        defer { granted = 0 }
        return granted
    }

    /// `count` messages of the same rate were let go on another server: those here wait for them.
    mutating func debit(_ count: Int, now: Double) {
        bucket.debit(Double(count), now: now)
    }

    /// The connection is gone: it neither waits nor is remembered.
    mutating func leave(_ connection: UInt64) {
        waiting.removeAll { $0 == connection }
        lastServed[connection] = nil
    }
}

/// ``FairShare`` on the real clock, for connections that wait their turn by suspending (and so
/// stop reading their socket, which slows their sender down).
final class SharedRate: Sendable {
    private struct State {
        var share: FairShare
        var continuations: [UInt64: CheckedContinuation<Void, Never>] = [:]
        var pumping = false
    }

    private let state: Mutex<State>
    private let clock = MonotonicSeconds()

    init(_ settings: FairShare.Settings) {
        state = Mutex(State(share: FairShare(settings, now: 0)))
    }

    private var now: Double { clock.now }

    /// Returns when `connection` may send its next message (at once, unless the share is used up).
    func take(_ connection: UInt64) async {
        if state.withLock({ $0.share.arrive(connection, now: now, queues: false) }) { return }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                // Queued and remembered in one step, so the pump can't serve it half queued.
                let (goes, startsPump) = state.withLock { state -> (Bool, Bool) in
                    if Task.isCancelled || state.share.arrive(connection, now: now) { return (true, false) }
                    state.continuations[connection] = continuation
                    defer { state.pumping = true }
                    return (false, !state.pumping)
                }
                if goes { continuation.resume() }
                if startsPump { Task { await self.pump() } }
            }
        } onCancel: {
            leave(connection)
        }
    }

    /// The connection is gone (or stopped waiting): anything it waited for is let go.
    func leave(_ connection: UInt64) {
        let waiter = state.withLock { state in
            state.share.leave(connection)
            return state.continuations.removeValue(forKey: connection)
        }
        waiter?.resume()
    }

    var isIdle: Bool { state.withLock { $0.share.isIdle } }

    /// The messages let go here since the last call.
    func takeGranted() -> Int { state.withLock { $0.share.takeGranted() } }

    /// `count` messages were let go on another server.
    func debit(_ count: Int) {
        let now = self.now
        state.withLock { $0.share.debit(count, now: now) }
    }

    /// Hands out tokens as they come while anyone waits.
    private func pump() async {
        while true {
            let now = self.now
            let (served, next) = state.withLock { state -> ([CheckedContinuation<Void, Never>], Double?) in
                let served = state.share.serve(now: now).compactMap { state.continuations.removeValue(forKey: $0) }
                let next = state.share.nextServing(now: now)
                if next == nil { state.pumping = false }
                return (served, next)
            }
            for continuation in served { continuation.resume() }
            guard let next else { return }
            try? await Task.sleep(for: .seconds(max(0.0002, next - now)))
        }
    }
}

/// One ``SharedRate`` per key (a client address, a document), kept while a connection uses it.
final class SharedRates<Key: Hashable & Sendable>: Sendable {
    private struct Entry {
        var rate: SharedRate
        var users: Int
    }

    let settings: FairShare.Settings
    private let entries = Mutex<[Key: Entry]>([:])

    init(_ settings: FairShare.Settings) {
        self.settings = settings
    }

    /// The rate `key`'s connections share; ``leave(_:connection:)`` when done with it.
    func join(_ key: Key) -> SharedRate {
        entries.withLock { entries in
            let rate = entries[key]?.rate ?? SharedRate(settings)
            entries[key, default: Entry(rate: rate, users: 0)].users += 1
            return rate
        }
    }

    func leave(_ key: Key, connection: UInt64) {
        let rate = entries.withLock { entries -> SharedRate? in
            guard var entry = entries[key] else { return nil }
            entry.users -= 1
            entries[key] = entry.users > 0 ? entry : nil
            return entry.rate
        }
        rate?.leave(connection)
    }

    /// How many keys have connections (for tests).
    var count: Int { entries.withLock { $0.count } }

    /// What each key's connections were let send here since the last call (keys that sent).
    func takeGranted() -> [Key: Int] {
        let rates = entries.withLock { $0.mapValues(\.rate) }
        return rates.compactMapValues { rate in
            let granted = rate.takeGranted()
            return granted > 0 ? granted : nil
        }
    }

    /// What other servers let the same keys send: taken from this server's share. A key with no
    /// connection here has nothing to wait, so it is skipped.
    func debit(_ counts: [Key: Int]) {
        let rates = entries.withLock { entries in
            counts.compactMap { key, count in entries[key].map { ($0.rate, count) } }
        }
        for (rate, count) in rates { rate.debit(count) }
    }
}
