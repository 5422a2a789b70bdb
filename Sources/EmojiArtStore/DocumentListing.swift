import Foundation

/// What one page of the document list asks for (`GET /api/documents`): whose documents, which
/// titles, from where, how many. Newest change first; ties by id, so the order is total and a
/// page's ``DocumentListing/Position`` says exactly where the next one starts.
public struct DocumentListing: Sendable, Equatable {
    /// Whose documents a page lists.
    public enum Scope: Sendable, Equatable {
        /// Every document, each as its owner's (local mode: one person, no accounts).
        case everything
        /// The documents `user` is a member of (by role), and those `links` open (document id →
        /// the link's role; the higher of the two counts where both do). No user: links only.
        case visible(user: UUID?, links: [UUID: DocumentRole])
    }

    /// Where a page ends: the last document's change time and id. The next page starts after it.
    public struct Position: Sendable, Hashable {
        public var updatedAt: Double
        public var id: UUID

        public init(updatedAt: Double, id: UUID) {
            self.updatedAt = updatedAt
            self.id = id
        }

        /// Whether `other` comes after this position in the list (older, or as old with a lower id).
        public func precedes(_ other: Position) -> Bool {
            updatedAt != other.updatedAt ? updatedAt > other.updatedAt : id.uuidString > other.id.uuidString
        }
    }

    public var scope: Scope
    /// Only documents whose title contains this, letters of either case alike; nil or empty: all.
    public var titleContains: String?
    /// The page starts after this position; nil: at the newest.
    public var after: Position?
    public var limit: Int

    public init(scope: Scope, titleContains: String? = nil, after: Position? = nil, limit: Int) {
        self.scope = scope
        self.titleContains = titleContains
        self.after = after
        self.limit = limit
    }
}

/// One page of the document list: each summary with the requester's role, and where the next
/// page starts (nil: this was the last).
public struct DocumentListPage: Sendable, Equatable {
    public struct Entry: Sendable, Equatable {
        public var summary: DocumentSummary
        public var role: DocumentRole

        public init(summary: DocumentSummary, role: DocumentRole) {
            self.summary = summary
            self.role = role
        }

        public var position: DocumentListing.Position {
            DocumentListing.Position(updatedAt: summary.updatedAt.timeIntervalSince1970, id: summary.id)
        }
    }

    public var entries: [Entry]
    public var next: DocumentListing.Position?

    public init(entries: [Entry], next: DocumentListing.Position?) {
        self.entries = entries
        self.next = next
    }
}
