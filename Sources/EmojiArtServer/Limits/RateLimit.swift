/// A rate: events per second sustained, and the burst allowed above that.
public struct RateLimit: Sendable, Equatable {
    public var perSecond: Double
    public var burst: Double

    public init(perSecond: Double, burst: Double) {
        self.perSecond = perSecond
        self.burst = burst
    }

    /// `count` events per `seconds`: a burst of `count`, refilled over `seconds`.
    public init(_ count: Int, per seconds: Double) {
        self.init(perSecond: Double(count) / seconds, burst: Double(count))
    }
}

/// The one rate limiter: a token bucket, as a value on the caller's clock (seconds, any origin),
/// so tests drive it with their own numbers. Tokens refill at ``RateLimit/perSecond`` up to
/// ``RateLimit/burst``; an event takes one.
///
/// Everything that limits a rate is one of these: a live window's messages (``LiveSession``),
/// a game connection's intents, the connections sharing an address or a document
/// (``FairShare``, which adds a fair queue), and guesses at passwords (``SignInThrottle``,
/// which replays the failures the store keeps, so the limit holds across servers).
struct TokenBucket: Sendable, Equatable {
    let limit: RateLimit
    private(set) var tokens: Double
    private(set) var refilledAt: Double

    /// A full bucket.
    init(_ limit: RateLimit, now: Double) {
        self.limit = limit
        tokens = limit.burst
        refilledAt = now
    }

    /// The bucket after `events` (times, oldest first) each took a token, full before the first.
    init(_ limit: RateLimit, replaying events: some Sequence<Double>) {
        var events = events.makeIterator()
        guard let first = events.next() else {
            self.init(limit, now: -.infinity)
            return
        }
        self.init(limit, now: first)
        spend(now: first)
        while let event = events.next() { spend(now: event) }
    }

    /// Takes a token if there is one: true if the event may happen now.
    mutating func take(now: Double) -> Bool {
        refill(now)
        guard tokens >= 1 else { return false }
        tokens -= 1
        return true
    }

    /// Takes a token for an event that happened whether or not there was one (a replayed
    /// failure, a racing server's): the bucket may go below empty, and then waits longer.
    mutating func spend(now: Double) {
        refill(now)
        tokens -= 1
    }

    /// Seconds from `now` until a token is there (0 if one is).
    func wait(now: Double) -> Double {
        let available = tokensAt(now)
        return available >= 1 ? 0 : (1 - available) / limit.perSecond
    }

    /// Tokens there would be at `now`, without taking any.
    func tokensAt(_ now: Double) -> Double {
        guard now > refilledAt else { return tokens }
        guard refilledAt.isFinite else { return limit.burst }
        return min(limit.burst, tokens + (now - refilledAt) * limit.perSecond)
    }

    mutating func refill(_ now: Double) {
        tokens = tokensAt(now)
        refilledAt = max(refilledAt, now)
    }
}

/// Seconds on the monotonic clock since this value was made: the clock ``TokenBucket``s run on
/// in the server.
struct MonotonicSeconds: Sendable {
    private let start = ContinuousClock.now

    var now: Double {
        let elapsed = ContinuousClock.now - start
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
    }
}
