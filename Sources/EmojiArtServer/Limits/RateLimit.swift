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

    /// The time the burst takes to refill: a logged rate allows ``burst`` events in any window
    /// this long.
    public var window: Double { burst / perSecond }

    /// For events kept in a log (a store's, shared by servers) rather than counted in memory:
    /// seconds from `now` until one more may happen — 0 while fewer than ``burst`` of `events`
    /// (their times, in any order) fall within the ``window`` before `now`, else until enough of
    /// them age out of it. So at most ``burst`` events in any window, however the log is read
    /// (a bucket replayed from a cut log would forget the debt of what was cut). Times after
    /// `now` (another server's clock ahead) count too.
    func wait(afterLogged events: [Double], now: Double) -> Double {
        let allowed = Int(burst)
        guard allowed > 0, window.isFinite else { return .infinity }
        let recent = events.filter { $0 > now - window }.sorted()
        guard recent.count >= allowed else { return 0 }
        return recent[recent.count - allowed] + window - now
    }
}

/// The one rate limiter: a token bucket, as a value on the caller's clock (seconds, any origin),
/// so tests drive it with their own numbers. Tokens refill at ``RateLimit/perSecond`` up to
/// ``RateLimit/burst``; an event takes one.
///
/// Every rate limited in memory is one of these: a live window's messages (``LiveSession``), a
/// game connection's intents, the connections sharing an address or a document (``FairShare``,
/// which adds a fair queue). Guesses at passwords are limited by the same ``RateLimit`` over the
/// failures the store keeps (``RateLimit/wait(afterLogged:now:)``: ``SignInThrottle``), so the
/// limit holds across servers.
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

    /// Takes a token if there is one: true if the event may happen now.
    mutating func take(now: Double) -> Bool {
        refill(now)
        guard tokens >= 1 else { return false }
        tokens -= 1
        return true
    }

    /// Takes `count` tokens spent elsewhere (another server's share of the same rate), going into
    /// debt if need be — at most one burst deep — so that what is taken here waits for it.
    mutating func debit(_ count: Double, now: Double) {
        refill(now)
        tokens = max(-limit.burst, tokens - count)
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
