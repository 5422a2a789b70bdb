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

    /// `n per window`: a burst of n, refilled over the window.
    @Test func countsPerWindowRefillOverTheWindow() {
        let rate = RateLimit(10, per: 900)
        #expect(rate.burst == 10 && rate.perSecond == 10.0 / 900 && abs(rate.window - 900) < 1e-9)
    }

    /// A logged rate: at most `burst` events in any window, however the log was cut.
    @Test(
        arguments: [
            // (events' ages in seconds before now) → seconds to wait
            ([Double](), 0.0),
            (Array(repeating: 1.0, count: 2), 0),  // under the burst
            (Array(repeating: 1.0, count: 3), 899),  // full: until the oldest ages out
            ([850, 1, 1], 50),
            ([900, 1, 1], 0),  // exactly a window old: out of it
            ([1, 1, 1, 1, 1], 899),  // more than the burst (racing servers): still until enough age out
            ([600, 300, 1, 1], 600),
            ([-30, 1, 1], 899),  // a failure from a clock ahead counts
        ] as [([Double], Double)])
    func aLoggedRateWaitsForItsEventsToAgeOut(ages: [Double], wait: Double) {
        let rate = RateLimit(3, per: 900)
        let now = 10_000.0
        #expect(abs(rate.wait(afterLogged: ages.map { now - $0 }, now: now) - wait) < 1e-6)
    }

    /// Issue #36's review: a bucket replayed over a log cut at the window forgot the debt of what
    /// was cut, and let an attacker who waited as told have about twice the limit. Judged over the
    /// log, an attacker who waits exactly as told never has more than the burst in any window.
    @Test func anAttackerWhoWaitsAsToldStaysWithinTheLimit() {
        let rate = RateLimit(10, per: 900)
        var failures: [Double] = []
        var now = 0.0
        while now < 4 * 3600 {
            let wait = rate.wait(afterLogged: failures.filter { $0 > now - 900 }, now: now)
            if wait == 0 { failures.append(now) } else { now += wait }
        }
        for start in failures {
            #expect(failures.count { $0 >= start && $0 < start + 900 } <= 10)
        }
        #expect(failures.count <= 10 * 16 + 10)
    }

    @Test func aLimitOfNothingNeverFreesUp() {
        #expect(RateLimit(0, per: 900).wait(afterLogged: [], now: 0) == .infinity)
    }

    @Test func aClockGoingBackRefillsNothing() {
        var bucket = TokenBucket(RateLimit(perSecond: 10, burst: 1), now: 5)
        let first = bucket.take(now: 5)
        let earlier = bucket.take(now: 4)
        let later = bucket.take(now: 5.2)
        #expect(first && !earlier && later)
    }
}
