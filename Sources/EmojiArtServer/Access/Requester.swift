import EmojiArtStore
import Foundation
import HTTPTypes
import Hummingbird

/// Who is asking, as the credentials a request carried say.
public enum Requester: Sendable, Equatable {
    /// Local mode's one user, who owns everything.
    case local
    /// A signed-in user: a session cookie or an API token.
    case user(User, Credential)
    /// Nobody signed in (who may still hold share links).
    case anonymous

    public enum Credential: Sendable, Equatable {
        /// The SHA-256 of the session cookie, so signing out can end it.
        case session(hash: String)
        /// The token's id and the SHA-256 it is kept by.
        case token(id: UUID, hash: String)
    }

    /// The user, if someone is signed in (or local).
    public var userID: UUID? {
        switch self {
        case .local: LocalUser.id
        case .user(let user, _): user.id
        case .anonymous: nil
        }
    }

    public var user: User? {
        if case .user(let user, _) = self { return user }
        return nil
    }
}

/// Everything a request carries that says who may do what: the requester and the share links
/// its browser holds.
public struct RequestAccess: Sendable, Equatable {
    public var requester: Requester
    /// The share links this browser opened (the `emojiart_links` cookie) that still work; made
    /// up, revoked and deleted ones are left out.
    public var links: [ShareLink]
    /// The SHA-256 of the browser cookie, when the request carried one: what tells a share
    /// link's visitors apart (the comments a guest may change are their browser's).
    public var browser: String?

    public init(requester: Requester, links: [ShareLink] = [], browser: String? = nil) {
        self.requester = requester
        self.links = links
        self.browser = browser
    }

    public static let nobody = RequestAccess(requester: .anonymous)

    /// Whether anything at all was presented that works: a user, or a link.
    public var isSomeone: Bool { requester != .anonymous || !links.isEmpty }

    /// Who the log names as a change's author: a signed-in user (nil in local mode and for
    /// share-link visitors).
    public var author: UUID? { requester.user?.id }

    /// The account making the request (the local user in local mode), or `401` saying that
    /// `what` needs one: share links open one document, not an account.
    func account(for what: String) throws -> UUID {
        guard let userID = requester.userID else {
            throw APIError(status: .unauthorized, code: "unauthorized", message: "Sign in to \(what).")
        }
        return userID
    }
}

/// A request context that carries ``RequestAccess``, filled in by ``AuthenticationMiddleware``.
public protocol AccessRequestContext: RequestContext where Source == ApplicationRequestContextSource {
    var access: RequestAccess { get set }
    /// The address of the peer that connected (a proxy's, behind one).
    var peerAddress: String? { get }
}

/// The HTTP routes' context.
public struct AppRequestContext: AccessRequestContext {
    public var coreContext: CoreRequestContextStorage
    public var access = RequestAccess.nobody
    public let peerAddress: String?

    public init(source: Source) {
        coreContext = .init(source: source)
        peerAddress = source.channel.remoteAddress?.ipAddress
    }
}

extension AccessRequestContext {
    /// See ``RequestAccess/author``.
    public var author: UUID? { access.author }
}

/// The live routes' context (``LiveUpgrade``).
public struct LiveRequestContext: AccessRequestContext {
    public var coreContext: CoreRequestContextStorage
    public var access = RequestAccess.nobody
    public let peerAddress: String?
    /// Set by the live route that matched: which connection to start, for whom.
    let liveRoute = LiveRouteBox()

    public init(source: Source) {
        coreContext = .init(source: source)
        peerAddress = source.channel.remoteAddress?.ipAddress
    }
}
