import Foundation
import Testing

@testable import EmojiArtServer

@Suite("Guessing is slowed without giving anyone a lock")
struct SignInThrottleTests {
    let throttle = SignInThrottle(addressLimit: 10, window: 900)

    @Test func theFirstFewFailuresCostNothing() {
        for failures in 0..<3 {
            #expect(
                throttle.verdict(addressFailures: failures, nameFailures: failures, sinceLastNameFailure: 0.1)
                    == .attempt)
        }
    }

    @Test(arguments: [(3, 2.0), (4, 4.0), (5, 8.0), (6, 16.0), (9, 128.0), (20, 900.0)])
    func eachFailureOnANameFromAnAddressDoublesTheWaitThere(failures: Int, wait: Double) {
        #expect(throttle.delay(afterFailures: failures) == wait)
        #expect(
            throttle.verdict(addressFailures: failures % 10, nameFailures: failures, sinceLastNameFailure: wait - 0.5)
                == .refuse(retryAfter: 1))
        #expect(
            throttle.verdict(addressFailures: failures % 10, nameFailures: failures, sinceLastNameFailure: wait)
                == .attempt)
    }

    @Test func anAddressWithTooManyFailuresWaitsForEveryName() {
        #expect(
            throttle.verdict(addressFailures: 10, nameFailures: 0, sinceLastNameFailure: nil)
                == .refuse(retryAfter: 900))
    }

    /// Issue #33: ten failures on a name from one address locked the name everywhere. Its
    /// failures elsewhere don't reach another address's verdict at all.
    @Test func anAttackOnANameElsewhereDoesNotStopItsOwner() {
        #expect(throttle.verdict(addressFailures: 0, nameFailures: 0, sinceLastNameFailure: nil) == .attempt)
        let attacker = SignInThrottle.Subjects(name: "Ada", address: "203.0.113.5")
        let owner = SignInThrottle.Subjects(name: "ada", address: "198.51.100.7")
        #expect(attacker.nameFromAddress != owner.nameFromAddress)
        #expect(attacker.address != owner.address)
        #expect(SignInThrottle.Subjects(name: "ADA", address: "203.0.113.5") == attacker)
    }
}
