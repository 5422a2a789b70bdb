import Foundation

/// Someone who signs in (accounts mode), or the one local user.
public struct User: Sendable, Equatable, Codable {
    public var id: UUID
    /// As they typed it; names are unique ignoring case.
    public var name: String
    public var isAdmin: Bool
    public var createdAt: Date

    public init(id: UUID = UUID(), name: String, isAdmin: Bool = false, createdAt: Date = Date()) {
        self.id = id
        self.name = name
        self.isAdmin = isAdmin
        self.createdAt = createdAt
    }

    /// The key names are compared by: lower case, so "Ada" and "ada" are one user.
    public static func nameKey(_ name: String) -> String { name.lowercased() }
}

/// A user as stored, with what signing in checks.
public struct StoredUser: Sendable, Equatable {
    public var user: User
    /// bcrypt; never the password.
    public var passwordHash: String
    public var passwordChangedAt: Date

    public init(user: User, passwordHash: String, passwordChangedAt: Date) {
        self.user = user
        self.passwordHash = passwordHash
        self.passwordChangedAt = passwordChangedAt
    }
}

/// A signed-in browser's session, by the SHA-256 of its cookie (the cookie itself is never kept).
public struct StoredSession: Sendable, Equatable {
    public var user: User
    public var createdAt: Date
    public var lastSeenAt: Date

    public init(user: User, createdAt: Date, lastSeenAt: Date) {
        self.user = user
        self.createdAt = createdAt
        self.lastSeenAt = lastSeenAt
    }
}

/// An API token for scripts and the CLI (its SHA-256 is kept, never the token).
public struct APIToken: Sendable, Equatable, Codable {
    public var id: UUID
    public var userID: UUID
    /// What it is for, as its creator said ("backup script").
    public var name: String
    public var createdAt: Date
    public var lastUsedAt: Date?

    public init(id: UUID = UUID(), userID: UUID, name: String, createdAt: Date = Date(), lastUsedAt: Date? = nil) {
        self.id = id
        self.userID = userID
        self.name = name
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
    }
}

/// What someone may do with a document.
public enum DocumentRole: String, Sendable, Codable, CaseIterable, Comparable {
    /// Changes content and title, deletes, shares.
    case owner
    /// Changes content and title.
    case editor
    /// Sees everything, live, and comments on it; changes nothing.
    case commenter
    /// Sees everything, live; changes nothing, comments on nothing.
    case viewer

    /// Whether the role may change the document's content and title.
    public var canEdit: Bool { self >= .editor }
    /// Whether the role may start, answer and resolve comment threads.
    public var canComment: Bool { self >= .commenter }
    /// Whether the role may delete and share the document.
    public var canManage: Bool { self == .owner }

    private var rank: Int {
        switch self {
        case .viewer: 0
        case .commenter: 1
        case .editor: 2
        case .owner: 3
        }
    }

    public static func < (lhs: DocumentRole, rhs: DocumentRole) -> Bool { lhs.rank < rhs.rank }
}

/// A link that gives whoever opens it a role on one document, until it is revoked.
public struct ShareLink: Sendable, Equatable {
    public enum Role: String, Sendable, Codable, CaseIterable {
        case view, comment, edit

        public var documentRole: DocumentRole {
            switch self {
            case .view: .viewer
            case .comment: .commenter
            case .edit: .editor
            }
        }
    }

    public var id: UUID
    public var documentID: UUID
    /// The secret in the link's URL (`/s/<token>`): at least 128 random bits.
    public var token: String
    public var role: Role
    public var createdAt: Date

    public init(id: UUID = UUID(), documentID: UUID, token: String, role: Role, createdAt: Date = Date()) {
        self.id = id
        self.documentID = documentID
        self.token = token
        self.role = role
        self.createdAt = createdAt
    }
}

/// A person a document is shared with, and their role.
public struct DocumentMember: Sendable, Equatable {
    public var user: User
    public var role: DocumentRole

    public init(user: User, role: DocumentRole) {
        self.user = user
        self.role = role
    }
}

/// Errors from the account stores, with what to do about them.
public enum AccountStoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Another user has this name (names are compared ignoring case).
    case nameTaken(String)
    /// There is no such user.
    case unknownUser
    /// There is no such document.
    case unknownDocument
    /// Ownership is not shared; it moves with ``UserStore/transferData(from:to:)``.
    case ownershipIsNotShared

    public var description: String {
        switch self {
        case .ownershipIsNotShared: "a document has one owner; share it as editor or viewer."
        case .nameTaken(let name): "there is already a user named \"\(name)\"; choose another name."
        case .unknownUser: "there is no such user."
        case .unknownDocument: "there is no such document."
        }
    }
}

/// The people who sign in.
public protocol UserStore: Sendable {
    /// Adds a user. Throws ``AccountStoreError/nameTaken(_:)`` if the name is taken.
    func addUser(_ user: User, passwordHash: String) async throws

    /// The user with this name (ignoring case), with their password hash, or nil.
    func user(named name: String) async throws -> StoredUser?

    /// The user with this id (the local user included), or nil.
    func user(id: UUID) async throws -> User?

    /// Every user but the local one, by name.
    func users() async throws -> [User]

    /// Replaces a user's password hash and, in the same transaction, ends every session of
    /// theirs. Throws ``AccountStoreError/unknownUser`` if there is no such user.
    func setPasswordHash(_ hash: String, of id: UUID, at date: Date) async throws

    /// Removes a user with their sessions, tokens, palettes and memberships; the documents they
    /// own are deleted with them (``transferData(from:to:)`` first keeps them). Returns false if
    /// there was no such user.
    func removeUser(id: UUID) async throws -> Bool

    /// Makes `to` the owner of every document `from` owns, and gives `to` the palettes of `from`
    /// if `to` has none yet: the first admin of a server that ran in local mode takes over the
    /// local user's, and a user's work can be kept before they are removed. Returns how many
    /// documents moved. Throws ``AccountStoreError/unknownUser`` if either is missing or they
    /// are the same user.
    func transferData(from: UUID, to: UUID) async throws -> Int

    /// What the editor remembers for a user (``UserPreferences``); the defaults when nothing is
    /// kept yet.
    func preferences(of userID: UUID) async throws -> UserPreferences

    /// Keeps a user's preferences (already validated). Throws ``AccountStoreError/unknownUser``
    /// if there is no such user.
    func setPreferences(_ preferences: UserPreferences, of userID: UUID) async throws
}

/// Signed-in browsers, and the failed attempts that throttle guessing.
public protocol SessionStore: Sendable {
    /// Starts a session for a user. Throws ``AccountStoreError/unknownUser`` if there is none.
    func createSession(tokenHash: String, userID: UUID, at date: Date) async throws

    /// The session with this cookie hash, or nil.
    func session(tokenHash: String) async throws -> StoredSession?

    /// Records that the session was used at `date`.
    func touchSession(tokenHash: String, at date: Date) async throws

    /// Ends a session (signing out). Ending one that is gone changes nothing.
    func deleteSession(tokenHash: String) async throws

    /// Ends every session last used before `date`; returns how many.
    func deleteSessions(idleSince date: Date) async throws -> Int

    /// Records a failed sign-in against each subject (a name, a client address).
    func recordSignInFailure(subjects: [String], at date: Date) async throws

    /// When a subject's failures since `date` were, oldest first (a rate limit replays them:
    /// ``TokenBucket`` in the server).
    func signInFailures(subject: String, since date: Date) async throws -> [Date]

    /// When the subject's latest failure was, or nil if it has none.
    func lastSignInFailure(subject: String) async throws -> Date?

    /// Forgets failures older than `date`.
    func forgetSignInFailures(before date: Date) async throws
}

/// API tokens for scripts and the CLI.
public protocol TokenStore: Sendable {
    /// Stores a token by its hash. Throws ``AccountStoreError/unknownUser`` if its user is gone.
    func createToken(_ token: APIToken, hash: String) async throws

    /// The token with this hash and its user, or nil (revoked, or its user removed).
    func token(hash: String) async throws -> (token: APIToken, user: User)?

    /// A user's tokens, oldest first.
    func tokens(of userID: UUID) async throws -> [APIToken]

    /// Records that the token was used at `date`.
    func touchToken(id: UUID, at date: Date) async throws

    /// Revokes a token. Returns false if there was no such token.
    func revokeToken(id: UUID) async throws -> Bool
}

/// Who may do what with each document: its owner and the people it is shared with by name.
public protocol ShareStore: Sendable {
    /// `userID`'s role on the document, or nil.
    func role(of userID: UUID, on documentID: UUID) async throws -> DocumentRole?

    /// Everyone with a role on the document, the owner first, then by name.
    func members(of documentID: UUID) async throws -> [DocumentMember]

    /// Shares the document with a user as editor or viewer (replacing their role), or with nil
    /// stops sharing it with them; on a shared store, other servers hear
    /// ``StoreChange/membersChanged(_:)``. The owner's role never changes here. Throws
    /// ``AccountStoreError/unknownUser``, ``AccountStoreError/unknownDocument``, or
    /// ``AccountStoreError/ownershipIsNotShared`` for `.owner`.
    func setRole(_ role: DocumentRole?, of userID: UUID, on documentID: UUID) async throws

    /// Every document `userID` has a role on, with that role.
    func documents(of userID: UUID) async throws -> [UUID: DocumentRole]
}

/// Links that share a document with whoever opens them.
public protocol LinkStore: Sendable {
    /// Stores a new link. Throws ``AccountStoreError/unknownDocument`` if the document is gone.
    func createLink(_ link: ShareLink) async throws

    /// The document's links, oldest first.
    func links(of documentID: UUID) async throws -> [ShareLink]

    /// The link with this token, or nil (revoked, or its document deleted).
    func link(token: String) async throws -> ShareLink?

    /// The links among these tokens that still work (at most a few dozen tokens).
    func links(tokens: [String]) async throws -> [ShareLink]

    /// Revokes one of the document's links; on a shared store, other servers hear
    /// ``StoreChange/linkRevoked(_:)``. Returns false if the document has no such link.
    func revokeLink(id: UUID, of documentID: UUID) async throws -> Bool

    /// Gives a browser (by the SHA-256 of its browser cookie) the link, until the link is
    /// revoked; the browser keeps its `limit` newest (``LinkStoreLimits/linksPerBrowser``).
    /// Throws ``AccountStoreError/unknownDocument`` if the link is gone.
    func grantLink(_ linkID: UUID, toBrowser browserHash: String, at date: Date, keeping limit: Int) async throws

    /// The links a browser was given that still work, oldest first.
    func links(browser browserHash: String) async throws -> [ShareLink]
}

public enum LinkStoreLimits {
    /// How many links one browser keeps: enough that nobody's are pushed out by use (and links
    /// are granted only by the browser's own click, never by another site).
    public static let linksPerBrowser = 500
}

/// Counts revocations — a session ended, a password changed, a token revoked, a user removed,
/// a role changed, a link revoked — each in the transaction that makes it, on the database
/// every server shares. A live connection that reads the same count as when it last checked
/// its grant knows nothing was revoked since; a different count makes it check again before
/// it applies anything more.
public protocol RevocationStore: Sendable {
    /// How many revocations have committed.
    func revocations() async throws -> Int
}
