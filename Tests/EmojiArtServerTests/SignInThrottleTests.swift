import Foundation
import Testing

@testable import EmojiArtServer

@Suite("Guessing is slowed without giving anyone a lock")
struct SignInThrottleTests {
    let throttle = SignInThrottle(addressLimit: 10, window: 900)
    let now = Date(timeIntervalSince1970: 1_000_000)

    @Test func aWaitIsWholeSecondsBetweenOneAndADay() {
        #expect(SignInThrottle.seconds(0.2) == 1 && SignInThrottle.seconds(89.1) == 90)
        #expect(SignInThrottle.seconds(.infinity) == 86_400 && SignInThrottle.seconds(1e12) == 86_400)
    }

    /// `count` failures of the address, `ago` seconds before ``now``.
    func failures(_ count: Int, ago: TimeInterval = 1) -> [Date] {
        Array(repeating: now.addingTimeInterval(-ago), count: count)
    }

    @Test func theFirstFewFailuresCostNothing() {
        for failures in 0..<3 {
            #expect(
                throttle.verdict(
                    addressFailures: self.failures(failures), nameFailures: failures, sinceLastNameFailure: 0.1,
                    now: now)
                    == .attempt)
        }
    }

    @Test(arguments: [(3, 2.0), (4, 4.0), (5, 8.0), (6, 16.0), (9, 128.0), (20, 900.0)])
    func eachFailureOnANameFromAnAddressDoublesTheWaitThere(failures: Int, wait: Double) {
        #expect(throttle.delay(afterFailures: failures) == wait)
        #expect(
            throttle.verdict(
                addressFailures: self.failures(failures % 10), nameFailures: failures,
                sinceLastNameFailure: wait - 0.5, now: now) == .refuse(retryAfter: 1))
        #expect(
            throttle.verdict(
                addressFailures: self.failures(failures % 10), nameFailures: failures, sinceLastNameFailure: wait,
                now: now) == .attempt)
    }

    /// Ten failures in any 15 minutes: the eleventh waits until one ages out, for every name.
    @Test(
        arguments: [
            (9, 1.0, nil), (10, 1, 899), (10, 45, 855), (10, 900, nil), (20, 1, 899), (11, 0, 900),
        ] as [(Int, TimeInterval, Int?)])
    func anAddressWithTooManyFailuresWaitsForEveryName(count: Int, ago: TimeInterval, retryAfter: Int?) {
        let verdict = throttle.verdict(
            addressFailures: failures(count, ago: ago), nameFailures: 0, sinceLastNameFailure: nil, now: now)
        #expect(verdict == (retryAfter.map { .refuse(retryAfter: $0) } ?? .attempt))
    }

    @Test func failuresSpreadOverTheWindowAgeOut() {
        // One failure every 90 s, the oldest now a window old: the next attempt goes.
        let spread = (0..<10).map { now.addingTimeInterval(-Double(10 - $0) * 90) }
        #expect(
            throttle.verdict(addressFailures: spread, nameFailures: 0, sinceLastNameFailure: nil, now: now) == .attempt)
    }

    /// Issue #33: ten failures on a name from one address locked the name everywhere. Its
    /// failures elsewhere don't reach another address's verdict at all.
    @Test func anAttackOnANameElsewhereDoesNotStopItsOwner() {
        #expect(throttle.verdict(addressFailures: [], nameFailures: 0, sinceLastNameFailure: nil, now: now) == .attempt)
        let attacker = SignInThrottle.Subjects(name: "Ada", address: "203.0.113.5")
        let owner = SignInThrottle.Subjects(name: "ada", address: "198.51.100.7")
        #expect(attacker.nameFromAddress != owner.nameFromAddress)
        #expect(attacker.address != owner.address)
        #expect(SignInThrottle.Subjects(name: "ADA", address: "203.0.113.5") == attacker)
    }
}
