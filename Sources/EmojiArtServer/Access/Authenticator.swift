import EmojiArtStore
import Foundation
import HTTPTypes
import Hummingbird

/// Finds out who is asking from what a request carries: in accounts mode, an API token
/// (`Authorization: Bearer …`), else a session cookie, plus any share links; in local mode, the
/// local user. A token that is presented but not valid is refused outright (`401`); a session
/// that has ended is as good as none.
public struct Authenticator: Sendable {
    public let settings: AccessSettings
    let sessions: any SessionStore
    let tokens: any TokenStore
    let links: any LinkStore
    var now: @Sendable () -> Date

    public init(
        settings: AccessSettings, sessions: any SessionStore, tokens: any TokenStore, links: any LinkStore,
        now: @escaping @Sendable () -> Date = Date.init
    ) {
        self.settings = settings
        self.sessions = sessions
        self.tokens = tokens
        self.links = links
        self.now = now
    }

    public func access(for head: HTTPRequest) async throws -> RequestAccess {
        guard settings.mode == .accounts else { return RequestAccess(requester: .local) }
        let cookies = Cookies.read(head.headerFields)
        let browser = cookies[Cookies.browser].flatMap { Secret.isWellFormed($0) ? Secret.hash($0) : nil }
        let links = try await self.links(cookies, browser: browser)
        let date = now()
        if let authorization = head.headerFields[.authorization] {
            let parts = authorization.split(separator: " ", maxSplits: 1)
            guard parts.count == 2, parts[0].lowercased() == "bearer", Secret.isWellFormed(parts[1]),
                let found = try await tokens.token(hash: Secret.hash(String(parts[1])))
            else { throw APIError.unauthorized }
            if date.timeIntervalSince(found.token.lastUsedAt ?? .distantPast) > settings.sessionTouchInterval {
                try await tokens.touchToken(id: found.token.id, at: date)
            }
            let credential = Requester.Credential.token(id: found.token.id, hash: Secret.hash(String(parts[1])))
            return RequestAccess(requester: .user(found.user, credential), links: links, browser: browser)
        }
        if let cookie = cookies[Cookies.session], Secret.isWellFormed(cookie) {
            let hash = Secret.hash(cookie)
            if let session = try await sessions.session(tokenHash: hash) {
                let idle = date.timeIntervalSince(session.lastSeenAt)
                if idle > settings.sessionIdleLimit {
                    try await sessions.deleteSession(tokenHash: hash)
                } else {
                    if idle > settings.sessionTouchInterval {
                        try await sessions.touchSession(tokenHash: hash, at: date)
                    }
                    return RequestAccess(
                        requester: .user(session.user, .session(hash: hash)), links: links, browser: browser)
                }
            }
        }
        return RequestAccess(requester: .anonymous, links: links, browser: browser)
    }

    /// The share links the browser opened (kept under its browser cookie, and any left in the
    /// old links cookie) that still work, each once.
    private func links(_ cookies: [String: String], browser: String?) async throws -> [ShareLink] {
        var found: [ShareLink] = []
        if let browser { found = try await links.links(browser: browser) }
        let tokens = Cookies.linkTokens(cookies)
        if !tokens.isEmpty {
            let known = Set(found.map(\.id))
            found += try await links.links(tokens: tokens).filter { !known.contains($0.id) }
        }
        return found
    }

    /// Whether the credentials `access` was found with still work: a session not ended, a token
    /// not revoked, links not revoked (live connections ask again from time to time).
    func stillValid(_ access: RequestAccess) async throws -> RequestAccess? {
        var current = access
        switch access.requester {
        case .local, .anonymous: break
        case .user(_, .session(let hash)):
            guard let session = try await sessions.session(tokenHash: hash),
                now().timeIntervalSince(session.lastSeenAt) <= settings.sessionIdleLimit
            else { return nil }
        case .user(_, .token(_, let hash)):
            guard try await tokens.token(hash: hash) != nil else { return nil }
        }
        if !access.links.isEmpty {
            current.links = try await links.links(tokens: access.links.map(\.token))
        }
        return current
    }
}

/// Fills in the context's ``RequestAccess`` for every request and, in accounts mode, stops
/// requests that carry nothing at all: `401` on the API, a redirect to the sign-in page for
/// pages. What stays open: `/api/health`, signing in and up, the sign-in page, the page's static
/// files, and opening a share link.
struct AuthenticationMiddleware<Context: AccessRequestContext>: RouterMiddleware {
    let authenticator: Authenticator

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        var context = context
        context.access = try await authenticator.access(for: request.head)
        if authenticator.settings.mode == .accounts, !context.access.isSomeone {
            let path = request.uri.path
            switch OpenRoutes.kind(of: path) {
            case .open: break
            case .api: throw APIError.unauthorized
            case .page:
                let next = request.uri.description
                let target =
                    "/signin"
                    + (path == "/"
                        ? ""
                        : "?next="
                            + (next.addingPercentEncoding(
                                withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-._~/"))) ?? "/"))
                return Response(status: .seeOther, headers: [.location: target, .cacheControl: "no-store"])
            }
        }
        return try await next(request, context)
    }
}

/// Which paths need someone (accounts mode).
enum OpenRoutes {
    enum Kind { case open, api, page }

    static func kind(of path: String) -> Kind {
        if path == "/api/health" || path == "/api/ready" || path == "/api/openapi.yaml" || path == "/api/session"
            || path == "/api/users"
        {
            return .open
        }
        // `/metrics` decides for itself (loopback, or an admin's token) and answers 404 otherwise.
        if path == "/metrics" { return .open }
        if path.hasPrefix("/api/") || path == "/api" { return .api }
        if path == "/signin" || path == "/signin.html" || path.hasPrefix("/s/") { return .open }
        if path.hasPrefix("/js/") || path.hasPrefix("/bundles/") || path.hasPrefix("/css/") || path.hasPrefix("/icons/")
            || path == "/favicon.ico"
            || path == "/favicon.svg"
        {
            return .open
        }
        // The app shell (docs/OFFLINE.md): the service worker keeps the two pages' files, which
        // hold nothing of anyone's; whoever opens one is asked who they are by its script.
        if path == "/sw.js" || path == "/manifest.webmanifest" || path == "/index.html" || path == "/editor.html" {
            return .open
        }
        return .page
    }
}

/// Fills in who is asking for WebSocket upgrades; whether they may is decided by each channel,
/// which answers with a close code.
struct LiveAuthenticationMiddleware<Context: AccessRequestContext>: RouterMiddleware {
    let authenticator: Authenticator

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        var context = context
        // An invalid token is simply no one here: the channel closes with 4401.
        context.access = (try? await authenticator.access(for: request.head)) ?? .nobody
        return try await next(request, context)
    }
}
