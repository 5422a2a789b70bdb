import Foundation
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

    /// What other servers let go of the same rate is taken from this one's share: messages here
    /// wait for it, however little of the burst was used here.
    @Test func whatOtherServersLetGoIsTakenFromTheShareHere() {
        var share = FairShare(RateLimit(perSecond: 10, burst: 10), now: 0)
        let first = share.arrive(1, now: 0)
        #expect(first && share.takeGranted() == 1 && share.takeGranted() == 0)
        share.debit(15, now: 0)  // 9 left, 15 used elsewhere: 6 in debt
        let next = share.arrive(1, now: 0)
        #expect(!next)
        #expect(abs((share.nextServing(now: 0) ?? 0) - 0.7) < 1e-9)  // 7 tokens at 10 a second
        #expect(share.serve(now: 0.7) == [1])
        #expect(share.takeGranted() == 1)
        // A debt is never deeper than one burst: a flood elsewhere can't lock a rate out for long.
        share.debit(1_000, now: 1)
        #expect(share.nextServing(now: 1) == nil)  // nobody waits yet
        let later = share.arrive(2, now: 1)
        #expect(!later)
        #expect(abs((share.nextServing(now: 1) ?? 0) - 2.1) < 1e-9)  // from -10 to 1: 1.1 s
    }

    /// The reports servers tell each other: every key, in payloads under the limit, read back.
    @Test func rateReportsRoundTripInPayloadsUnderTheLimit() throws {
        let documents = Dictionary(uniqueKeysWithValues: (0..<300).map { (UUID(), $0 + 1) })
        let report = RateReport(
            server: "s1", addresses: ["127.0.0.1": 40, "::1": 2, "with space": 1], documents: documents)
        let payloads = report.payloads(limit: 7_900)
        #expect(payloads.count > 1 && payloads.allSatisfy { $0.utf8.count <= 7_900 })
        var heard = RateReport(server: "s1")
        for payload in payloads {
            let part = try #require(RateReport(payload: payload))
            #expect(part.server == "s1")
            heard.addresses.merge(part.addresses, uniquingKeysWith: +)
            heard.documents.merge(part.documents, uniquingKeysWith: +)
        }
        #expect(heard.addresses == ["127.0.0.1": 40, "::1": 2])  // an address with a space can't be told
        #expect(heard.documents == documents)
        for other in [
            "", "emojiart-presence 1 -", "rates s1\na many 1.2.3.4", "rates s1\nd 1 not-a-uuid", "rates s1\nx 1 y",
        ] {
            #expect(RateReport(payload: other) == nil)
        }
    }

    /// The exchange between two servers' shared rates: A tells what it let go, B takes it.
    @Test func aServerTakesWhatAnotherLetGoFromItsShare() async {
        var settings = AccessSettings()
        // A token a thousand seconds: nothing refills while the test runs, however slowly.
        settings.liveMessagesPerAddress = RateLimit(perSecond: 0.001, burst: 5)
        let a = RateExchange(server: "a", limits: LiveChannel.SharedLimits(settings))
        let b = RateExchange(server: "b", limits: LiveChannel.SharedLimits(settings))
        let onA = a.limits.addresses.join("10.0.0.7")
        let onB = b.limits.addresses.join("10.0.0.7")
        for _ in 0..<5 { await onA.take(1) }  // A's whole burst
        #expect(b.report() == nil)
        let report = a.report()
        #expect(report == RateReport(server: "a", addresses: ["10.0.0.7": 5]))
        b.receive(report!)
        a.receive(report!)  // a server's own report is not taken twice
        #expect(onB.takeGranted() == 0)
        // B's share is spent: its next message waits.
        let waited = Task { await onB.take(2) }
        try? await Task.sleep(for: .milliseconds(100))
        #expect(onB.takeGranted() == 0)
        waited.cancel()
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
