import EmojiArtServer
import EmojiArtStore
import EmojiArtStoreSQLite
import Foundation
import HTTPTypes
import Synchronization
import Testing

/// Who a request's credentials make it, on a clock the test moves.
@Suite("The authenticator")
struct AuthenticatorTests {
    final class Clock: Sendable {
        let date = Mutex(Date(timeIntervalSince1970: 1_700_000_000))
        func advance(days: Double) { date.withLock { $0 += days * 24 * 3600 } }
    }

    func request(cookie: String) -> HTTPRequest {
        HTTPRequest(
            method: .get, scheme: "http", authority: "localhost", path: "/api/documents",
            headerFields: [.cookie: cookie])
    }

    @Test func aSessionLastsThirtyIdleDaysAndIsWrittenDownAtMostHourly() async throws {
        let stores = Stores.inMemory()
        let clock = Clock()
        var settings = AccessSettings()
        settings.mode = .accounts
        let authenticator = Authenticator(
            settings: settings, sessions: stores.sessions, tokens: stores.tokens, links: stores.links,
            now: { clock.date.withLock { $0 } })
        // Whole seconds, as the store keeps dates.
        let ada = User(name: "ada", createdAt: Date(timeIntervalSince1970: 1_700_000_000))
        try await stores.users.addUser(ada, passwordHash: "!")
        let secret = Secret.make()
        try await stores.sessions.createSession(
            tokenHash: Secret.hash(secret), userID: ada.id, at: clock.date.withLock { $0 })
        let head = request(cookie: "\(Cookies.session)=\(secret)")

        clock.advance(days: 29)
        #expect(try await authenticator.access(for: head).requester.user == ada)
        let touched = try #require(try await stores.sessions.session(tokenHash: Secret.hash(secret)))
        #expect(touched.lastSeenAt == clock.date.withLock { $0 }, "used after a while: written down")
        clock.advance(days: 29.9)
        #expect(try await authenticator.access(for: head).requester.user == ada, "idle time counts from the last use")
        clock.advance(days: 30.1)
        #expect(try await authenticator.access(for: head).requester == .anonymous)
        #expect(
            try await stores.sessions.session(tokenHash: Secret.hash(secret)) == nil, "an ended session is forgotten")
    }

    @Test func localModeIsTheLocalUserWhateverIsSent() async throws {
        let stores = Stores.inMemory()
        let authenticator = Authenticator(
            settings: AccessSettings(), sessions: stores.sessions, tokens: stores.tokens, links: stores.links)
        #expect(try await authenticator.access(for: request(cookie: "x=y")).requester == .local)
    }
}
