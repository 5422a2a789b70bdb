import Logging
import ServiceLifecycle

/// What opens a database server named by `--database` (`$EMOJIART_DATABASE_URL`): PostgreSQL's
/// driver (EmojiArtStorePostgres), which the `emojiart` program installs around its commands
/// (``installed``). `emojiart-sqlite`, the program `scripts/serve` builds, installs none: it
/// keeps documents in the embedded SQLite file or in memory only, and builds without the
/// PostgreSQL client and the cryptography it brings (docs/PERFORMANCE.md, "A newcomer's first
/// build").
public struct DatabaseDriver: Sendable {
    /// The stores on the database at `url` as a server runs them: not connected yet, with the
    /// services that connect them and the migrations to run before the server listens.
    public var prepare: @Sendable (_ url: String, _ logger: Logger) throws -> PreparedStores
    /// The stores on the database at `url`, connected and migrated (the commands that work on a
    /// server's database).
    public var open: @Sendable (_ url: String, _ logger: Logger) async throws -> Stores
    /// Where `url` keeps documents, for the startup message (never with a password).
    public var describe: @Sendable (_ url: String) -> String

    public init(
        prepare: @escaping @Sendable (String, Logger) throws -> PreparedStores,
        open: @escaping @Sendable (String, Logger) async throws -> Stores,
        describe: @escaping @Sendable (String) -> String
    ) {
        self.prepare = prepare
        self.open = open
        self.describe = describe
    }

    /// The driver of the program that is running: set by its `main` for the commands it runs,
    /// nil in a program without one.
    @TaskLocal public static var installed: DatabaseDriver?
}

/// Stores, with what must run for them while the server does.
public struct PreparedStores: Sendable {
    public var stores: Stores
    /// Run before every other service and stopped after them (PostgreSQL's pool).
    public var services: [any Service]
    /// Run before the server takes connections (PostgreSQL's migrations).
    public var migrate: @Sendable () async throws -> Void

    public init(
        stores: Stores, services: [any Service] = [], migrate: @escaping @Sendable () async throws -> Void = {}
    ) {
        self.stores = stores
        self.services = services
        self.migrate = migrate
    }
}
