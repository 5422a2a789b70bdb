import EmojiArtStore
import Foundation

/// How guessing passwords is slowed, as a value tests drive without a clock or a store.
///
/// Failures are counted per client address, and per name *from that address* — never per
/// name alone, which would let anyone lock anyone out by failing on their name. So:
/// - an address may fail ``addressLimit`` times in any ``window`` (``addressRate``, judged over
///   the failures the store keeps: ``RateLimit/wait(afterLogged:now:)``); past that it is
///   refused for every name (`429`, `Retry-After` when enough of them have aged out);
/// - a name failed from one address (or from unknown addresses, which count as one) gets a
///   growing delay there: after ``freeAttempts`` failures, each further attempt must wait
///   ``delay(afterFailures:)`` since the last one (`429` with `Retry-After` meanwhile);
/// - the same name from an address with no recent failures is tried at once, whatever goes on
///   elsewhere: the right password gets in while an attack on the name goes on.
///
/// Only failures count (a refused attempt is not one), so waiting always helps. The failures
/// are the store's, so the limits hold across servers sharing it.
struct SignInThrottle: Sendable, Equatable {
    var addressLimit: Int
    var window: TimeInterval
    var freeAttempts = 3
    var firstDelay: TimeInterval = 2

    init(settings: AccessSettings) {
        addressLimit = settings.throttleLimit
        window = settings.throttleWindow
    }

    init(addressLimit: Int, window: TimeInterval) {
        self.addressLimit = addressLimit
        self.window = window
    }

    /// The failures an address may have: ``addressLimit`` per ``window``.
    var addressRate: RateLimit { RateLimit(addressLimit, per: window) }

    /// The failure subjects of one attempt.
    struct Subjects: Sendable, Equatable {
        /// Every failure from the address.
        var address: String
        /// Failures on the name from the address (names compared ignoring case).
        var nameFromAddress: String

        init(name: String, address: String) {
            self.address = "address:" + address
            self.nameFromAddress = "name:" + User.nameKey(name) + " from:" + address
        }

        var all: [String] { [address, nameFromAddress] }
    }

    /// How long the next attempt on a name waits after `failures` of it from one address.
    func delay(afterFailures failures: Int) -> TimeInterval {
        guard failures >= freeAttempts else { return 0 }
        return min(firstDelay * pow(2, Double(failures - freeAttempts)), window)
    }

    enum Verdict: Sendable, Equatable {
        /// Check the password.
        case attempt
        /// `429` with this `Retry-After` (seconds).
        case refuse(retryAfter: Int)
    }

    /// The verdict given the failures counted so far.
    /// - Parameters:
    ///   - addressFailures: when the address's failures within ``window`` were, oldest first.
    ///   - nameFailures: how many failures on the name from the address within ``window``.
    ///   - sinceLastNameFailure: how long ago the last of those was, if there was one.
    ///   - now: the time of the attempt.
    func verdict(addressFailures: [Date], nameFailures: Int, sinceLastNameFailure: TimeInterval?, now: Date)
        -> Verdict
    {
        let addressWait = addressRate.wait(
            afterLogged: addressFailures.map(\.timeIntervalSince1970), now: now.timeIntervalSince1970)
        if addressWait > 0 { return .refuse(retryAfter: Self.seconds(addressWait)) }
        let wait = delay(afterFailures: nameFailures)
        if wait > 0, let since = sinceLastNameFailure, since < wait {
            return .refuse(retryAfter: Self.seconds(wait - since))
        }
        return .attempt
    }

    /// A wait as `Retry-After`'s whole seconds: at least 1, at most a day (a limit of 0 never
    /// frees up).
    static func seconds(_ wait: TimeInterval) -> Int {
        guard wait.isFinite else { return 86_400 }
        return Int(min(max(1, wait.rounded(.up)), 86_400))
    }
}

/// Names looked up that aren't there (sharing by name): counted per account and per client
/// address with the sign-in failures, so nobody learns who has an account by trying a list.
/// Twice the sign-in limit per its window: enough for a class list with typos.
struct NameLookups: Sendable {
    let rate: RateLimit
    let window: TimeInterval
    let subjects: [String]

    init(settings: AccessSettings, account: UUID, address: String) {
        rate = RateLimit(settings.throttleLimit * 2, per: settings.throttleWindow)
        window = settings.throttleWindow
        subjects = ["names by:" + account.uuidString, "names from:" + address]
    }

    /// Seconds until the asker may look up a name again, or nil if it may now.
    func retryAfter(_ store: any SessionStore, at date: Date) async throws -> Int? {
        var wait: TimeInterval = 0
        for subject in subjects {
            let failures = try await store.signInFailures(subject: subject, since: date.addingTimeInterval(-window))
            wait = max(
                wait, rate.wait(afterLogged: failures.map(\.timeIntervalSince1970), now: date.timeIntervalSince1970))
        }
        return wait > 0 ? SignInThrottle.seconds(wait) : nil
    }
}
