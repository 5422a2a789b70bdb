import Testing

@testable import EmojiArtServer

/// The one rate limiter, on a clock the tests keep: a token bucket.
@Suite struct RateLimitTests {
    /// (events at these times) → (which of them may happen).
    @Test(
        arguments: [
            // A burst goes at once; the next waits for a token.
            ([0.0, 0, 0, 0], [true, true, true, false]),
            // Tokens come at perSecond (10): one every 0.1 s.
            ([0, 0, 0, 0.05, 0.1, 0.15, 0.2], [true, true, true, false, true, false, true]),
            // Idle time refills up to the burst, never beyond it.
            ([0, 0, 0, 10, 10, 10, 10], [true, true, true, true, true, true, false]),
            // A refused event takes nothing: waiting always helps.
            ([0, 0, 0, 0.01, 0.02, 0.1], [true, true, true, false, false, true]),
        ] as [([Double], [Bool])])
    func eventsTakeTokens(times: [Double], allowed: [Bool]) {
        var bucket = TokenBucket(RateLimit(perSecond: 10, burst: 3), now: 0)
        var goes: [Bool] = []
        for time in times { goes.append(bucket.take(now: time)) }
        #expect(goes == allowed)
    }

    @Test(
        arguments: [
            // (tokens taken at 0, asked at) → seconds to wait
            (0, 0.0, 0.0), (3, 0, 0.1), (3, 0.05, 0.05), (3, 0.1, 0), (3, 5, 0),
        ] as [(Int, Double, Double)])
    func theWaitIsUntilTheNextToken(taken: Int, at: Double, wait: Double) {
        var bucket = TokenBucket(RateLimit(perSecond: 10, burst: 3), now: 0)
        for _ in 0..<taken { _ = bucket.take(now: 0) }
        #expect(abs(bucket.wait(now: at) - wait) < 1e-9)
    }

    /// `n per window`: the whole allowance at once, then one more each window ÷ n.
    @Test func countsPerWindowRefillOverTheWindow() {
        let rate = RateLimit(10, per: 900)
        #expect(rate.burst == 10 && rate.perSecond == 10.0 / 900)
        let bucket = TokenBucket(rate, replaying: Array(repeating: 100.0, count: 10))
        #expect(abs(bucket.wait(now: 100) - 90) < 1e-9)
        #expect(bucket.wait(now: 190) == 0)
        #expect(abs(bucket.tokensAt(100 + 900) - 10) < 1e-9)
    }

    /// Replayed events (failures a store kept, maybe from racing servers) spend a token each,
    /// there or not: more of them than the burst means a longer wait.
    @Test(
        arguments: [
            ([Double](), 0.0), ([0], 0), ([0, 0, 0], 0.1), ([0, 0, 0, 0], 0.2), ([0, 0, 0, 0.3], 0),
        ] as [([Double], Double)])
    func replayedEventsSpendTokens(events: [Double], wait: Double) {
        let bucket = TokenBucket(RateLimit(perSecond: 10, burst: 3), replaying: events)
        let last = events.last ?? 0
        #expect(abs(bucket.wait(now: last) - wait) < 1e-9)
    }

    @Test func aClockGoingBackRefillsNothing() {
        var bucket = TokenBucket(RateLimit(perSecond: 10, burst: 1), now: 5)
        let first = bucket.take(now: 5)
        let earlier = bucket.take(now: 4)
        let later = bucket.take(now: 5.2)
        #expect(first && !earlier && later)
    }
}
