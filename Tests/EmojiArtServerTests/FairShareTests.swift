import Testing

@testable import EmojiArtServer

/// The shared rates' decision, on a clock the tests keep.
@Suite struct FairShareTests {
    @Test func aBurstGoesAtOnceThenSendersWaitForTokens() {
        var share = FairShare(RateLimit(perSecond: 10, burst: 3), now: 0)
        let burst = (0..<4).map { _ in share.arrive(1, now: 0) }
        #expect(burst == [true, true, true, false])
        #expect(share.nextServing(now: 0) == 0.1)
        let early = share.serve(now: 0.05)
        let onTime = share.serve(now: 0.1)
        #expect(early.isEmpty && onTime == [1])
        #expect(share.nextServing(now: 0.1) == nil)
        // Nobody waits and a token has come: the next message goes at once.
        let later = share.arrive(1, now: 0.2)
        #expect(later)
    }

    @Test func theConnectionServedLongestAgoGoesFirst() {
        var share = FairShare(RateLimit(perSecond: 1, burst: 1), now: 0)
        var goes: [Bool] = []
        var served: [[UInt64]] = []
        goes.append(share.arrive(1, now: 0))
        // Two flooders take turns...
        goes.append(share.arrive(1, now: 0.25))
        goes.append(share.arrive(2, now: 0.5))
        served.append(share.serve(now: 1))
        goes.append(share.arrive(2, now: 1.25))
        served.append(share.serve(now: 2))
        goes.append(share.arrive(1, now: 2.25))
        // ...and a window that sends now and then, arriving last, is served next.
        goes.append(share.arrive(3, now: 2.5))
        for time in [3.0, 4, 5, 6] { served.append(share.serve(now: time)) }
        #expect(goes == [true, false, false, false, false, false])
        #expect(served == [[2], [1], [3], [2], [1], []])
    }

    @Test func aConnectionThatLeavesNoLongerWaitsOrCounts() {
        var share = FairShare(RateLimit(perSecond: 100, burst: 1), now: 0)
        let first = share.arrive(1, now: 0)
        let second = share.arrive(2, now: 0)
        #expect(first && !second && share.waitingCount == 1)
        share.leave(2)
        share.leave(1)
        #expect(share.isIdle)
        #expect(share.nextServing(now: 0) == nil)
    }

    @Test func sharedRateLetsWaitersGoAsTokensComeAndCancelledOnesLeave() async throws {
        let rate = SharedRate(RateLimit(perSecond: 200, burst: 2))
        let start = ContinuousClock.now
        // 12 messages from 3 connections: 2 at once, the other 10 at 200 a second.
        await withTaskGroup(of: Void.self) { group in
            for connection in UInt64(1)...3 {
                group.addTask { for _ in 0..<4 { await rate.take(connection) } }
            }
        }
        let elapsed = ContinuousClock.now - start
        // (No upper bound: under a loaded machine the pump's sleeps may run late.)
        #expect(elapsed >= .milliseconds(45), "took \(elapsed)")
        let waiting = Task { await rate.take(4) }
        try await Task.sleep(for: .milliseconds(1))
        waiting.cancel()
        await waiting.value
        for connection in UInt64(1)...4 { rate.leave(connection) }
        #expect(rate.isIdle)
    }
}
