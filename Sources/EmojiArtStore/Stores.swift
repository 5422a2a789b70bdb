import Foundation

/// One store for each aggregate, as a server or command uses them. They may share one database
/// (SQLite, PostgreSQL, memory), but each user of them depends only on the protocol it needs.
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

    public init(
        documents: any DocumentStore, palettes: any PaletteStore, images: any ImageStore, users: any UserStore,
        sessions: any SessionStore, tokens: any TokenStore, shares: any ShareStore, links: any LinkStore,
        revocations: any RevocationStore
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
    }

    /// The documents' own store (whose SQL differs between databases), the rest in the shared
    /// SQL on the same database.
    public init(documents: any DocumentStore, database: any SQLDatabase) {
        let accounts = SQLAccountStore(database: database)
        self.init(
            documents: documents, palettes: SQLPaletteStore(database: database),
            images: SQLImageStore(database: database),
            users: accounts, sessions: accounts, tokens: accounts, shares: accounts, links: accounts,
            revocations: accounts)
    }

    /// Everything in one ``InMemoryStore``.
    public static func inMemory(_ store: InMemoryStore = InMemoryStore()) -> Stores {
        Stores(
            documents: store, palettes: store, images: store, users: store, sessions: store, tokens: store,
            shares: store, links: store, revocations: store)
    }

    /// "memory", "sqlite" or "postgres".
    public var kind: String { documents.kind }

    /// The feed of changes other servers commit, when the database is shared.
    public var shared: (any SharedDocumentStore)? { documents as? any SharedDocumentStore }
}
