import Foundation

/// One store for each aggregate, as a server or command uses them. They may share one database
/// (SQLite in a file or in memory, PostgreSQL), but each user of them depends only on the protocol it needs.
public struct Stores: Sendable {
    public var documents: any DocumentStore
    public var palettes: any PaletteStore
    public var images: any ImageStore
    public var users: any UserStore
    public var sessions: any SessionStore
    public var tokens: any TokenStore
    public var shares: any ShareStore
    public var links: any LinkStore
    public var revocations: any RevocationStore
    public var comments: any CommentStore

    public init(
        documents: any DocumentStore, palettes: any PaletteStore, images: any ImageStore, users: any UserStore,
        sessions: any SessionStore, tokens: any TokenStore, shares: any ShareStore, links: any LinkStore,
        revocations: any RevocationStore, comments: any CommentStore, changes: (any StoreChangeFeed)? = nil,
        broadcasts: (any InstanceBroadcast)? = nil
    ) {
        self.documents = documents
        self.palettes = palettes
        self.images = images
        self.users = users
        self.sessions = sessions
        self.tokens = tokens
        self.shares = shares
        self.links = links
        self.revocations = revocations
        self.comments = comments
        self.changes = changes
        self.broadcasts = broadcasts
    }

    /// Every store on one SQL database.
    ///
    /// - Parameter kind: what health checks and logs call the store; the database's name by default.
    public init(database: any SQLDatabase, kind: String? = nil) {
        let accounts = SQLAccountStore(database: database)
        self.init(
            documents: SQLDocumentStore(database: database, kind: kind), palettes: SQLPaletteStore(database: database),
            images: SQLImageStore(database: database),
            users: accounts, sessions: accounts, tokens: accounts, shares: accounts, links: accounts,
            revocations: accounts, comments: SQLCommentStore(database: database), changes: database.changes,
            broadcasts: database.broadcasts)
    }

    /// "memory", "sqlite" or "postgres".
    public var kind: String { documents.kind }

    /// The changes other processes commit to the same database, when any can.
    public var changes: (any StoreChangeFeed)?

    /// Messages to and from the other servers on the same database (presence), when any can
    /// share it.
    public var broadcasts: (any InstanceBroadcast)?
}
