import EmojiArtFetch
import EmojiArtStore
import Foundation
import HTTPTypes
import Hummingbird

/// `/api/session`: signing in and out (accounts mode), and who is signed in; `POST /api/users`:
/// making an account yourself when sign-up is open (`--signup open`).
struct SessionController {
    let settings: AccessSettings
    let users: any UserStore
    let sessions: any SessionStore
    let hasher: PasswordHasher
    let grants: LiveGrants
    /// The names this server answers to: a `next` may be an absolute URL of one of them.
    let siteGuard: SiteGuard
    let queue = TurnQueue()
    var now: @Sendable () -> Date = Date.init

    struct Credentials: Decodable {
        var name: String
        var password: String
        /// Where the page means to go afterwards; the answer's `next` says where it may.
        var next: String?
    }

    struct SessionBody: ResponseEncodable {
        struct UserBody: Encodable {
            var id: UUID
            var name: String
            var isAdmin: Bool
        }

        /// `local` or `accounts`.
        var access: String
        var user: UserBody
        /// Whether anyone may make an account here.
        var signup: Bool
        /// After signing in or up with a `next`: the path of this site to go to (``ReturnPath``).
        var next: String?
    }

    func addRoutes(session: RouterGroup<AppRequestContext>, users: RouterGroup<AppRequestContext>) {
        session.get(use: show)
        session.post(use: signIn)
        session.delete(use: signOut)
        session.get("preferences", use: preferences)
        session.put("preferences", use: setPreferences)
        users.post(use: signUp)
    }

    /// The signed-in account whose preferences these are: `401` without one; `404` in local mode,
    /// where the browser keeps them.
    private func preferencesOwner(_ context: AppRequestContext) throws -> UUID {
        switch context.access.requester {
        case .user(let user, _): return user.id
        case .local: throw APIError.notFound("In local mode the browser keeps the preferences.")
        case .anonymous: throw APIError.unauthorized
        }
    }

    /// `GET /api/session/preferences`: what the editor remembers for this account.
    @Sendable func preferences(_ request: Request, context: AppRequestContext) async throws -> UserPreferences {
        try await users.preferences(of: try preferencesOwner(context))
    }

    /// `PUT /api/session/preferences` `{"skinTone": 0–5, "recentEmojis": [...]}`: replaces them.
    @Sendable func setPreferences(_ request: Request, context: AppRequestContext) async throws -> UserPreferences {
        let owner = try preferencesOwner(context)
        guard let preferences = try await decode(UserPreferences.self, from: request) else {
            throw APIError.badRequest("Send {\"skinTone\": 0–5, \"recentEmojis\": [\"🦊\", …]}.")
        }
        try preferences.validate()
        try await users.setPreferences(preferences, of: owner)
        return preferences
    }

    /// `GET /api/session`: who is signed in, or `401`.
    @Sendable func show(_ request: Request, context: AppRequestContext) async throws -> SessionBody {
        switch context.access.requester {
        case .local:
            return body(for: User(id: LocalUser.id, name: LocalUser.name))
        case .user(let user, _):
            return body(for: user)
        case .anonymous:
            throw APIError.unauthorized
        }
    }

    /// `POST /api/session` `{"name", "password"}`: `200` with the session cookie. A wrong name
    /// and a wrong password get the same `401`, in the same time. Guessing is slowed per client
    /// address, and per name from that address (``SignInThrottle``): `429` with `Retry-After`
    /// there, never for the name from everywhere, so nobody can lock anyone out.
    @Sendable func signIn(_ request: Request, context: AppRequestContext) async throws -> Response {
        guard settings.mode == .accounts else {
            throw APIError(
                status: .conflict, code: "local_mode",
                message: "This server runs in local mode: there is no signing in.")
        }
        guard let credentials = try await decode(Credentials.self, from: request) else {
            throw APIError.badRequest("Send {\"name\": \"…\", \"password\": \"…\"}.")
        }
        let subjects = SignInThrottle.Subjects(
            name: String(credentials.name.prefix(AccountRules.maximumNameLength + 1)),
            address: ClientAddress.key(peer: context.peerAddress, headers: request.headers, settings: settings))
        // One attempt at a time per address and per name from it, each seeing the failures
        // before it; attempts from elsewhere don't wait behind them.
        let (sessions, users, hasher, now) = (self.sessions, self.users, self.hasher, self.now)
        let throttle = SignInThrottle(settings: settings)
        let signedIn = try await queue.withTurn(subjects.all) { () async throws -> User in
            let date = now()
            let windowStart = date.addingTimeInterval(-throttle.window)
            let last = try await sessions.lastSignInFailure(subject: subjects.nameFromAddress)
            let verdict = throttle.verdict(
                addressFailures: try await sessions.signInFailures(subject: subjects.address, since: windowStart),
                nameFailures: try await sessions.signInFailures(subject: subjects.nameFromAddress, since: windowStart)
                    .count,
                sinceLastNameFailure: last.map { date.timeIntervalSince($0) }, now: date)
            if case .refuse(let retryAfter) = verdict {
                ServerMetrics.signInFailures.increment()
                throw APIError.throttled(retryAfter: retryAfter)
            }
            let stored = try await users.user(named: credentials.name)
            let password = String(credentials.password.prefix(1024))
            let verified: Bool
            if let stored {
                verified = try await hasher.verify(password, against: stored.passwordHash)
            } else {
                try await hasher.verifyAgainstNothing(password)
                verified = false
            }
            guard verified, let user = stored?.user else {
                ServerMetrics.signInFailures.increment()
                try await sessions.recordSignInFailure(subjects: subjects.all, at: date)
                throw APIError(
                    status: .unauthorized, code: "unauthorized",
                    message: "That name and password don't match an account.")
            }
            return user
        }
        guard let signedIn else { throw APIError.throttled(retryAfter: 60) }
        return try await startSession(
            for: signedIn, at: now(), next: credentials.next, request: request, context: context, status: .ok)
    }

    /// `DELETE /api/session`: ends this browser's session and forgets its cookie.
    @Sendable func signOut(_ request: Request, context: AppRequestContext) async throws -> Response {
        if case .user(_, .session(let hash)) = context.access.requester {
            try await sessions.deleteSession(tokenHash: hash)
            await grants.sessionEnded(hash: hash)
        }
        var headers = HTTPFields()
        headers[.setCookie] = Cookies.setCookie(Cookies.session, "", maxAge: 0, secure: settings.secureCookies)
        headers[.cacheControl] = "no-store"
        return Response(status: .noContent, headers: headers)
    }

    /// `POST /api/users` `{"name", "password"}` with `--signup open`: a new account, signed in.
    @Sendable func signUp(_ request: Request, context: AppRequestContext) async throws -> Response {
        guard settings.mode == .accounts, settings.openSignup else {
            throw APIError.forbidden("Sign-up is closed here: ask the server's admin for an account.")
        }
        guard let credentials = try await decode(Credentials.self, from: request) else {
            throw APIError.badRequest("Send {\"name\": \"…\", \"password\": \"…\"}.")
        }
        if let problem = AccountRules.problem(withName: credentials.name) {
            throw APIError(status: .unprocessableContent, code: "invalid_name", message: problem)
        }
        if let problem = AccountRules.problem(withPassword: credentials.password) {
            throw APIError(status: .unprocessableContent, code: "invalid_password", message: problem)
        }
        // A taken name says a name exists: it counts as a failure of the address, so names can't
        // be probed through sign-up faster than through signing in.
        let address = SignInThrottle.Subjects(
            name: credentials.name,
            address: ClientAddress.key(peer: context.peerAddress, headers: request.headers, settings: settings)
        ).address
        let date = now()
        let throttle = SignInThrottle(settings: settings)
        if case .refuse(let retryAfter) = throttle.verdict(
            addressFailures: try await sessions.signInFailures(
                subject: address, since: date.addingTimeInterval(-throttle.window)),
            nameFailures: 0, sinceLastNameFailure: nil, now: date)
        {
            throw APIError.throttled(retryAfter: retryAfter)
        }
        let user = User(name: credentials.name, createdAt: date)
        do {
            try await users.addUser(user, passwordHash: try await hasher.hash(credentials.password))
        } catch AccountStoreError.nameTaken {
            try await sessions.recordSignInFailure(subjects: [address], at: date)
            throw APIError(
                status: .conflict, code: "name_taken", message: "That name is taken; choose another.")
        }
        return try await startSession(
            for: user, at: now(), next: credentials.next, request: request, context: context, status: .created)
    }

    private func startSession(
        for user: User, at date: Date, next: String?, request: Request, context: AppRequestContext,
        status: HTTPResponse.Status
    ) async throws -> Response {
        let cookie = Secret.make()
        try await sessions.createSession(tokenHash: Secret.hash(cookie), userID: user.id, at: date)
        var body = body(for: user)
        body.next = next.map { ReturnPath($0, ownNames: siteGuard.ownNames).path }
        var response = try body.response(from: request, context: context)
        response.status = status
        response.headers[.setCookie] = Cookies.setCookie(
            Cookies.session, cookie, maxAge: Int(settings.sessionIdleLimit), secure: settings.secureCookies)
        response.headers[.cacheControl] = "no-store"
        return response
    }

    private func body(for user: User) -> SessionBody {
        SessionBody(
            access: settings.mode.rawValue, user: .init(id: user.id, name: user.name, isAdmin: user.isAdmin),
            signup: settings.mode == .accounts && settings.openSignup)
    }

}

extension UserPreferences: ResponseEncodable {}
