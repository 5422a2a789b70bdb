import Foundation

/// Who wrote a comment: a signed-in user, or a share link's visitor (a guest), by a key that
/// says who may change it and the name shown with it.
public struct CommentAuthor: Sendable, Equatable {
    /// `user:<id>` for a user (the local user in local mode), `browser:<hash>` for a guest, by the
    /// SHA-256 of their browser cookie: never shown, only compared.
    public var key: String
    /// As shown: the user's name, or "Guest".
    public var name: String

    public init(key: String, name: String) {
        self.key = key
        self.name = name
    }

    public static func user(_ id: UUID, name: String) -> CommentAuthor {
        CommentAuthor(key: "user:" + id.uuidString, name: name)
    }

    public static func guest(browserHash: String) -> CommentAuthor {
        CommentAuthor(key: "browser:" + browserHash, name: "Guest")
    }
}

/// One comment: a thread's first, or a reply.
public struct Comment: Sendable, Equatable {
    public var id: UUID
    public var text: String
    public var author: CommentAuthor
    public var createdAt: Date
    /// When its text was last changed, if ever.
    public var editedAt: Date?

    public init(id: UUID = UUID(), text: String, author: CommentAuthor, createdAt: Date, editedAt: Date? = nil) {
        self.id = id
        self.text = text
        self.author = author
        self.createdAt = createdAt
        self.editedAt = editedAt
    }
}

/// A point of the picture, in its coordinates (the centre is 0, 0).
public struct CommentPoint: Sendable, Equatable, Hashable {
    public var x: Double
    public var y: Double

    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }
}

/// A conversation pinned to a point of a document's picture or to one of its emojis: its first
/// comment, the replies in order, and whether it is resolved. Comments are their own aggregate:
/// never document edits, so they are not undone, versioned, or written to `.emojiart` files.
public struct CommentThread: Sendable, Equatable {
    public var id: UUID { first.id }
    public var documentID: UUID
    public var first: Comment
    public var replies: [Comment]
    /// Where the pin is: the point it was put at, or — pinned to an emoji — where that emoji
    /// was last seen (``anchorVersion``), so the pin stays there if the emoji is deleted.
    public var position: CommentPoint
    /// The emoji it is pinned to, if any; the pin follows it while it exists.
    public var emojiID: Int?
    /// The document's version at which ``position`` was last brought up to date.
    public var anchorVersion: Int
    public var resolved: Bool
    /// Its newest activity: made, replied to, edited, resolved or reopened.
    public var updatedAt: Date

    public init(
        documentID: UUID, first: Comment, replies: [Comment] = [], position: CommentPoint, emojiID: Int? = nil,
        anchorVersion: Int = 0, resolved: Bool = false, updatedAt: Date? = nil
    ) {
        self.documentID = documentID
        self.first = first
        self.replies = replies
        self.position = position
        self.emojiID = emojiID
        self.anchorVersion = anchorVersion
        self.resolved = resolved
        self.updatedAt = updatedAt ?? first.createdAt
    }

    /// The comment with this id: the first or a reply.
    public func comment(_ id: UUID) -> Comment? {
        first.id == id ? first : replies.first { $0.id == id }
    }
}

/// Why a comment change was refused; nothing was changed.
public enum CommentStoreError: Error, Sendable, Equatable {
    /// The document has as many open threads as it may (``CommentLimits/openThreads``).
    case tooManyOpenThreads
    /// A subject of the ``CommentQuota`` has written as many comments as it may lately.
    case tooManyComments
}

/// How many comments each subject (an author, a client address) may have written since a moment:
/// checked and counted in the transaction that writes a comment, so neither servers sharing the
/// store, requests racing, nor deleting what was written lets more through.
public struct CommentQuota: Sendable, Equatable {
    /// Each subject and how many comments it may have written since ``since``.
    public var limits: [String: Int]
    public var since: Date

    public init(limits: [String: Int], since: Date) {
        self.limits = limits
        self.since = since
    }

    /// No limit (tools, tests).
    public static let none = CommentQuota(limits: [:], since: .distantPast)
}

public enum CommentLimits {
    /// Open threads a document may have; resolve some to start more.
    public static let openThreads = 500
    /// A comment's text, in characters.
    public static let textLength = 2_000
    /// Comments (threads and replies) one author may write a minute, on all servers together.
    public static let perMinute = 30
    /// Comments all the authors at one client address may write a minute (a class behind one
    /// router shares it; a guest who throws their browser cookie away keeps their address).
    public static let perAddressPerMinute = 300

    /// What is wrong with a comment's text, if anything: empty (or only spaces), longer than
    /// ``textLength`` characters, or with control characters other than line breaks and tabs.
    /// Text is kept as written — plain text, which the page never reads as HTML.
    public static func problem(with text: String) -> String? {
        if text.allSatisfy(\.isWhitespace) { return "A comment needs some text." }
        if text.count > textLength { return "A comment is at most \(textLength) characters long." }
        let control = text.unicodeScalars.contains { scalar in
            scalar.properties.generalCategory == .control && scalar != "\n" && scalar != "\t"
        }
        if control { return "A comment can't contain control characters." }
        return nil
    }
}

/// Every document's comment threads. Each change is one transaction, and on a shared store the
/// other servers hear ``StoreChange/comments(_:)`` for the document.
public protocol CommentStore: Sendable {
    /// The document's threads with their replies, newest activity first.
    func threads(of documentID: UUID) async throws -> [CommentThread]

    /// The thread that holds the comment `commentID` (its first or a reply) in the document, or
    /// nil if the document has no such comment.
    func thread(containing commentID: UUID, of documentID: UUID) async throws -> CommentThread?

    /// Starts a thread. Throws ``CommentStoreError/tooManyOpenThreads`` when the document has
    /// `openLimit` open threads, ``CommentStoreError/tooManyComments`` past the quota,
    /// ``AccountStoreError/unknownDocument`` when it is gone.
    func createThread(_ thread: CommentThread, openLimit: Int, quota: CommentQuota) async throws

    /// Adds a reply at the end of a thread of the document. False if there is no such thread;
    /// throws ``CommentStoreError/tooManyComments`` past the quota.
    func addReply(_ reply: Comment, to threadID: UUID, of documentID: UUID, quota: CommentQuota) async throws -> Bool

    /// Changes a comment's text (a thread's first or a reply). False if there is no such comment.
    func editComment(_ commentID: UUID, of documentID: UUID, text: String, at date: Date) async throws -> Bool

    /// Resolves or reopens a thread; reopening one throws ``CommentStoreError/tooManyOpenThreads``
    /// when `openLimit` are open. False if there is no such thread.
    func setResolved(_ resolved: Bool, thread threadID: UUID, of documentID: UUID, at date: Date, openLimit: Int)
        async throws -> Bool

    /// Deletes a comment: a reply alone, a thread with its replies. False if there is no such comment.
    func deleteComment(_ commentID: UUID, of documentID: UUID) async throws -> Bool

    /// Records where pinned emojis now are (or were last), as of a document version: the pins
    /// of the threads named. Not a change anyone is told about.
    func movePins(_ places: [UUID: CommentPoint], of documentID: UUID, atVersion version: Int) async throws
}
