import EmojiArtStore
import Foundation
import Logging
import PostgresNIO

/// PostgreSQL through postgres-nio's pool of connections, for deployments that outgrow one
/// machine: several servers share one database that is already run and backed up. Every
/// store's SQL runs on it (``SQLDocumentStore``, the shared stores; ``Stores/postgres(_:logger:)``);
/// what is PostgreSQL's own is here: connecting, the schema's history (versioned in
/// `emojiart_migrations` and brought up to date under an advisory lock when a server starts,
/// so instances starting together migrate once), and hearing every server's changes
/// (`LISTEN`/`NOTIFY`). Dates are seconds since 1970 as `double precision`, so both databases
/// give back exactly what they were given.
public final class PostgreSQLDatabase: SQLDatabase, StoreChangeFeed {
    /// Where the database is, from a `postgres://user:password@host:port/database` URL.
    public struct Connection: Sendable, CustomStringConvertible {
        public var host: String
        public var port: Int
        public var username: String
        public var password: String?
        public var database: String
        /// `?sslmode=disable|prefer|require` (default: prefer).
        public var sslMode: String
        /// `?pool_max_conns=N` (1...1000, default 16): the most connections this server's queries
        /// use at once. Each server also keeps one of its own to hear changes and the other
        /// servers' broadcasts (`LISTEN`), so PostgreSQL's `max_connections` must exceed
        /// instances × (N + 1) (docs/DEPLOY.md, "Sizing").
        public var poolSize: Int

        public init(url: String) throws {
            guard let components = URLComponents(string: url),
                ["postgres", "postgresql"].contains(components.scheme?.lowercased() ?? ""),
                let host = components.host, !host.isEmpty
            else {
                throw StoreError.unavailable(
                    "\"\(url.prefix(200))\" is not a postgres://user:password@host:port/database address")
            }
            self.host = host
            port = components.port ?? 5432
            username = components.user.flatMap { $0.removingPercentEncoding } ?? "postgres"
            password = components.password.flatMap { $0.removingPercentEncoding }
            let path = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
            database = path.isEmpty ? username : path
            sslMode = components.queryItems?.first { $0.name == "sslmode" }?.value ?? "prefer"
            guard ["disable", "prefer", "require"].contains(sslMode) else {
                throw StoreError.unavailable("sslmode must be disable, prefer or require, not \(sslMode)")
            }
            poolSize = 16
            if let pool = components.queryItems?.first(where: { $0.name == "pool_max_conns" })?.value {
                guard let size = Int(pool), (1...1000).contains(size) else {
                    throw StoreError.unavailable("pool_max_conns must be 1...1000, not \(pool.prefix(40))")
                }
                poolSize = size
            }
        }

        /// The address without the password, for logs.
        public var description: String { "postgres://\(username)@\(host):\(port)/\(database)" }

        /// For the pool of connections queries use.
        var clientConfiguration: PostgresClient.Configuration {
            let tls: PostgresClient.Configuration.TLS =
                switch sslMode {
                case "disable": .disable
                case "require": .require(.makeClientConfiguration())
                default: .prefer(.makeClientConfiguration())
                }
            var configuration = PostgresClient.Configuration(
                host: host, port: port, username: username, password: password, database: database, tls: tls)
            configuration.options.maximumConnections = poolSize
            configuration.options.connectTimeout = .seconds(5)
            return configuration
        }

        /// For a single connection of its own (migrations, listening for changes).
        func connectionConfiguration() throws -> PostgresConnection.Configuration {
            let tls: PostgresConnection.Configuration.TLS =
                switch sslMode {
                case "disable": .disable
                case "require": .require(try .init(configuration: .makeClientConfiguration()))
                default: .prefer(try .init(configuration: .makeClientConfiguration()))
                }
            var configuration = PostgresConnection.Configuration(
                host: host, port: port, username: username, password: password, database: database, tls: tls)
            configuration.options.connectTimeout = .seconds(5)
            return configuration
        }

        /// For the health probe: a connection that gives up after a second.
        func probeConfiguration() throws -> PostgresConnection.Configuration {
            var configuration = try connectionConfiguration()
            configuration.options.connectTimeout = .seconds(1)
            return configuration
        }

        /// One connection of its own; the caller closes it.
        func connect(logger: Logger) async throws -> PostgresConnection {
            try await PostgresConnection.connect(configuration: try connectionConfiguration(), id: 0, logger: logger)
        }
    }

    public let connection: Connection
    let pool: PostgresPool
    /// The pool of connections every query goes through. A service: the server runs it in its
    /// service group (so it stops after everything that writes has); ``open(_:logger:)`` runs it
    /// for tools and tests.
    public var client: PostgresClient { pool.client }
    let logger: Logger
    /// The connections queries wait on, each watched for closing (``PostgresConnection/whileOpen(watchedBy:_:)``).
    let watch: ConnectionWatch
    /// The one `LISTEN` connection, for changes and broadcasts.
    let listener: NotificationListener

    /// For tools and tests: connects, brings the schema up to date, and runs the pool of
    /// connections until ``close()``. Fails at once, saying why, if the database cannot be
    /// reached or used. (The server makes the database with ``init(connection:logger:)`` and runs
    /// ``client`` and ``migrate()`` as part of its services instead.)
    public static func open(
        _ connection: Connection, logger: Logger = Logger(label: "emojiart.postgres")
    ) async throws -> PostgreSQLDatabase {
        let database = PostgreSQLDatabase(connection: connection, logger: logger, runsItsPool: true)
        do {
            try await database.migrate()
        } catch {
            database.close()
            throw error
        }
        return database
    }

    /// A database whose pool of connections (``client``) the caller runs, as a service; nothing is
    /// connected yet. Call ``migrate()`` before the first query.
    public convenience init(connection: Connection, logger: Logger = Logger(label: "emojiart.postgres")) {
        self.init(connection: connection, logger: logger, runsItsPool: false)
    }

    private init(connection: Connection, logger: Logger, runsItsPool: Bool) {
        self.connection = connection
        self.logger = logger
        let watch = ConnectionWatch()
        self.watch = watch
        // The pool retries failed connections by itself; each retry is not news.
        var backgroundLogger = logger
        backgroundLogger.logLevel = max(logger.logLevel, .warning)
        pool = PostgresPool(
            PostgresClient(configuration: connection.clientConfiguration, backgroundLogger: backgroundLogger),
            runsItself: runsItsPool,
            health: DatabaseHealth(logger: logger) { [connection, logger, watch] in
                var quiet = logger
                quiet.logLevel = .critical
                let probe = try await PostgresConnection.connect(
                    configuration: try connection.probeConfiguration(), id: 1, logger: quiet)
                defer { Task { try? await probe.close() } }
                try await probe.whileOpen(watchedBy: watch) { [quiet] in
                    _ = try await $0.query("SELECT 1", logger: quiet)
                }
            })
        listener = NotificationListener(
            channels: [Self.channel, Self.broadcastChannel], health: pool.health, logger: logger
        ) { [connection, logger] in
            try await connection.connect(logger: logger)
        }
    }

    /// Brings the schema up to date on a connection of its own (under an advisory lock, so
    /// servers starting together migrate once). Fails saying why if the database cannot be
    /// reached or used.
    public func migrate() async throws {
        do {
            let session = try await connection.connect(logger: logger)
            do {
                try await Self.migrate(on: session, logger: logger)
            } catch {
                try? await session.close()
                throw error
            }
            try? await session.close()
        } catch {
            throw StoreError.unavailable("PostgreSQL at \(connection) can't be used: \(Self.describe(error))")
        }
    }

    /// Closes the connections; the database cannot be used afterwards.
    public func close() {
        pool.close()
    }

    /// The schema's history: its own migrations, then the shared ones (numbered from 1000).
    /// Shipped migrations never change; new ones are appended.
    static let migrations: [(version: Int, name: String, statements: [String])] =
        ownMigrations
        + SharedSchema.migrations(.postgres).map { (1000 + $0.number, "shared: " + $0.name, $0.statements) }

    private static let ownMigrations: [(version: Int, name: String, statements: [String])] = [
        (
            1, "documents, edit log, palettes, content-addressed images",
            [
                """
                CREATE TABLE document (
                    id uuid PRIMARY KEY,
                    title text NOT NULL,
                    emoji_count integer NOT NULL,
                    version bigint NOT NULL,
                    snapshot bytea NOT NULL,
                    snapshot_version bigint NOT NULL,
                    created_at double precision NOT NULL,
                    updated_at double precision NOT NULL
                )
                """,
                "CREATE INDEX document_by_update ON document (updated_at DESC)",
                """
                CREATE TABLE edit_log (
                    document_id uuid NOT NULL REFERENCES document(id) ON DELETE CASCADE,
                    version bigint NOT NULL,
                    edits bytea NOT NULL,
                    date double precision NOT NULL,
                    PRIMARY KEY (document_id, version)
                )
                """,
                """
                CREATE TABLE palette (
                    id uuid PRIMARY KEY,
                    position integer NOT NULL,
                    name text NOT NULL,
                    emojis text NOT NULL
                )
                """,
                """
                CREATE TABLE image (
                    id text PRIMARY KEY,
                    mime_type text NOT NULL,
                    width integer NOT NULL,
                    height integer NOT NULL,
                    bytes bytea NOT NULL,
                    created_at double precision NOT NULL
                )
                """,
                """
                CREATE TABLE image_source (
                    url text PRIMARY KEY,
                    image_id text NOT NULL REFERENCES image(id) ON DELETE CASCADE
                )
                """,
            ]
        ),
        (
            2, "log steps and request ids",
            [
                "ALTER TABLE edit_log ADD COLUMN step text",
                "ALTER TABLE edit_log ADD COLUMN request_id text",
            ]
        ),
        (
            // The log is kept past the snapshot as history, with checkpoints to read old
            // versions from. What was compacted away before is gone; history starts at the snapshot.
            3, "history: checkpoints, authors, undo names",
            [
                "ALTER TABLE edit_log ADD COLUMN author uuid",
                "ALTER TABLE edit_log ADD COLUMN action_name text",
                """
                CREATE TABLE checkpoint (
                    document_id uuid NOT NULL REFERENCES document(id) ON DELETE CASCADE,
                    version bigint NOT NULL,
                    snapshot bytea NOT NULL,
                    date double precision NOT NULL,
                    PRIMARY KEY (document_id, version)
                )
                """,
                """
                INSERT INTO checkpoint (document_id, version, snapshot, date)
                SELECT id, snapshot_version, snapshot,
                    COALESCE((SELECT MIN(date) FROM edit_log WHERE document_id = document.id), updated_at)
                FROM document
                """,
            ]
        ),
    ]

    /// Every migration's version, in order.
    public static var migrationVersions: [Int] { migrations.map(\.version) }

    /// Applies the migrations not yet applied, in one transaction under an advisory lock.
    /// - Parameter last: stop after this version (tests build an older database with it).
    static func migrate(on connection: PostgresConnection, upTo last: Int = .max, logger: Logger) async throws {
        try await connection.withTransaction(logger: logger) { connection in
            try await connection.query("SELECT pg_advisory_xact_lock(7152023)", logger: logger)
            try await connection.query(
                """
                CREATE TABLE IF NOT EXISTS emojiart_migrations (
                    version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now()
                )
                """, logger: logger)
            var applied: Set<Int> = []
            for try await version in try await connection.query(
                "SELECT version FROM emojiart_migrations", logger: logger
            ).decode(Int.self) {
                applied.insert(version)
            }
            for migration in migrations where !applied.contains(migration.version) {
                guard migration.version <= last else { break }
                for statement in migration.statements {
                    try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                }
                try await connection.query(
                    "INSERT INTO emojiart_migrations (version, name) VALUES (\(migration.version), \(migration.name))",
                    logger: logger)
            }
        }
    }

    /// The applied migrations' versions (for tests).
    public func appliedMigrations() async throws -> [Int] {
        try await read(SQLStatement("SELECT version FROM emojiart_migrations ORDER BY version")).compactMap {
            $0[0].int
        }
    }

    public var dialect: SQLDialect { .postgres }

    /// Two of the pool's connections write the commit queue's gathered appends, side by side
    /// (one in a pool of fewer than 8): so a write waiting for another server's row lock doesn't
    /// stop every document, and yet appends gather into shared commits as soon as PostgreSQL is
    /// busy — what a busy PostgreSQL spends most on is commits, not statements. Measured against
    /// one and four in docs/PERFORMANCE.md ("Shared commits").
    public var concurrentWrites: Int { connection.poolSize >= 8 ? 2 : 1 }

    public func read(_ statements: [SQLStatement]) async throws -> [[SQLRow]] {
        if statements.count == 1 {
            try pool.health.check()
            let (statement, logger) = (statements[0], logger)
            let rows: [SQLRow]
            do {
                rows = try await client.withConnection { connection in
                    try await connection.whileOpen(watchedBy: watch) {
                        try await Self.run(statement, on: $0, logger: logger)
                    }
                }
            } catch {
                throw pool.health.noting(Self.translated(error))
            }
            if rows.isEmpty, let error = statements[0].errorIfNoRow { throw error }
            return [rows]
        }
        // One snapshot for all of them (PostgreSQL's default, READ COMMITTED, would let each
        // statement see what committed after the one before: a snapshot read, then the log after
        // a newer one another server just saved).
        return try await transaction(statements, setUp: "SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
    }

    public func write(_ statements: [SQLStatement]) async throws -> [[SQLRow]] {
        try await transaction(statements, setUp: nil)
    }

    /// Runs the statements in one transaction, after `setUp` (how the transaction behaves). Should
    /// a prepared append fail with PostgreSQL's answer (so nothing was written), the whole is run
    /// once more: its connection now goes unprepared (``PreparedAppend``).
    private func transaction(_ statements: [SQLStatement], setUp: String?) async throws -> [[SQLRow]] {
        try pool.health.check()
        do {
            do {
                return try await attempt(statements, setUp: setUp)
            } catch let error where PreparedAppend.Failed.answered(error) {
                return try await attempt(statements, setUp: setUp)
            }
        } catch let error as PostgresTransactionError {
            throw pool.health.noting(
                Self.translated(
                    PreparedAppend.Failed.unwrapped(
                        error.closureError ?? error.commitError ?? error.beginError ?? error)))
        } catch {
            throw pool.health.noting(Self.translated(PreparedAppend.Failed.unwrapped(error)))
        }
    }

    private func attempt(_ statements: [SQLStatement], setUp: String?) async throws -> [[SQLRow]] {
        let logger = logger
        if setUp == nil, statements.count == 1, statements[0].errorIfNoRow == nil {
            // One statement is a transaction of its own: no BEGIN and COMMIT round trips.
            let statement = statements[0]
            return try await client.withConnection { connection in
                try await connection.whileOpen(watchedBy: watch) {
                    [try await Self.run(statement, on: $0, logger: logger)]
                }
            }
        }
        return try await client.withConnection { connection in
            try await connection.whileOpen(watchedBy: watch) { connection in
                try await connection.withTransaction(logger: logger) { connection in
                    if let setUp { try await connection.query(PostgresQuery(unsafeSQL: setUp), logger: logger) }
                    var results: [[SQLRow]] = []
                    for statement in statements {
                        let rows = try await Self.run(statement, on: connection, logger: logger)
                        // Thrown inside the transaction, so it is rolled back.
                        if rows.isEmpty, let error = statement.errorIfNoRow { throw error }
                        results.append(rows)
                    }
                    return results
                }
            }
        }
    }

    static func query(_ statement: SQLStatement) throws -> PostgresQuery {
        var binds = PostgresBindings(capacity: statement.binds.count)
        for value in statement.binds {
            switch value {
            case .null: binds.appendNull()
            case .integer(let number): try binds.append(number)
            case .real(let number): try binds.append(number)
            case .text(let text): try binds.append(text)
            case .blob(let data): try binds.append(data)
            case .uuid(let id): try binds.append(id)
            }
        }
        return PostgresQuery(unsafeSQL: SQLDialect.postgres.render(statement.sql), binds: binds)
    }

    /// One statement's rows, read to the end. (Callers wait through
    /// ``PostgresConnection/whileOpen(watchedBy:_:)``.)
    static func run(_ statement: SQLStatement, on connection: PostgresConnection, logger: Logger) async throws
        -> [SQLRow]
    {
        let query = try query(statement)
        if PreparedAppend.runs(query, on: connection) {
            do {
                return try await rows(of: connection.execute(PreparedAppend(bindings: query.binds), logger: logger))
            } catch {
                PreparedAppend.failed(on: connection)
                throw PreparedAppend.Failed(underlying: error)
            }
        }
        return try await rows(of: connection.query(query, logger: logger))
    }

    private static func rows(of sequence: some AsyncSequence<PostgresRow, any Error>) async throws -> [SQLRow] {
        var result: [SQLRow] = []
        for try await row in sequence {
            result.append(try row.map(SQLValue.init))
        }
        return result
    }

    /// Constraint violations as ``SQLConstraintViolation``; everything else as it came.
    static func translated(_ error: any Error) -> any Error {
        guard let error = error as? PSQLError, let state = error.serverInfo?[.sqlState] else { return error }
        switch state {
        case "23505": return SQLConstraintViolation.unique
        case "23503": return SQLConstraintViolation.foreignKey
        default: return error
        }
    }

    public var changes: (any StoreChangeFeed)? { self }

    public var broadcasts: (any InstanceBroadcast)? { self }

    // MARK: Changes from every server

    /// The channel changes are announced on (`NOTIFY`), inside the transaction that makes them.
    static let channel = SQLDialect.postgresChannel

    /// Hands `handle` every change committed through any server on this database, this one's
    /// included, heard with `LISTEN` on a connection of its own (shared with the broadcasts),
    /// until the calling task is cancelled. When that connection is (re)established it says
    /// ``StoreChange/resync``: changes made meanwhile were not heard. A lost connection is
    /// retried after 0.1 … 5 s.
    public func followChanges(_ handle: @Sendable (StoreChange) async -> Void) async {
        await listener.follow(Self.channel) { payload in
            if let payload {
                if let change = StoreChange(payload: payload) { await handle(change) }
            } else {
                await handle(.resync)
            }
        }
    }

    /// A PostgreSQL error as a person reads it: the server's message when there is one.
    static func describe(_ error: any Error) -> String {
        if let error = error as? PostgresTransactionError {
            return describe(error.closureError ?? error.commitError ?? error.beginError ?? error)
        }
        if let error = error as? PSQLError {
            if let message = error.serverInfo?[.message] { return message }
            if let underlying = error.underlying { return String(describing: underlying) }
            return "\(error.code)"
        }
        return String(describing: error)
    }
}

extension SQLValue {
    init(_ cell: PostgresCell) throws {
        guard cell.bytes != nil else {
            self = .null
            return
        }
        switch cell.dataType {
        case .int2, .int4, .int8: self = .integer(try cell.decode(Int.self))
        case .float4, .float8, .numeric: self = .real(try cell.decode(Double.self))
        case .bool: self = .integer(try cell.decode(Bool.self) ? 1 : 0)
        case .bytea: self = .blob(try cell.decode(Data.self))
        case .uuid: self = .uuid(try cell.decode(UUID.self))
        default: self = .text(try cell.decode(String.self))
        }
    }
}

/// postgres-nio's pool of connections: run by whoever owns the store (the server's service
/// group), or — for tools and tests — by itself for as long as anything holds it.
final class PostgresPool: Sendable {
    let client: PostgresClient
    /// Whether the database answers: while it doesn't, queries fail at once.
    let health: DatabaseHealth
    private let running: Task<Void, Never>?

    init(_ client: PostgresClient, runsItself: Bool, health: DatabaseHealth) {
        self.client = client
        self.health = health
        running = runsItself ? Task { await client.run() } : nil
    }

    deinit {
        running?.cancel()
    }

    func close() {
        running?.cancel()
    }
}

// MARK: - Presence between servers

extension PostgreSQLDatabase: InstanceBroadcast {
    /// The channel servers tell each other who is present on (`NOTIFY`, outside any transaction).
    static let broadcastChannel = "emojiart_presence"

    /// PostgreSQL's `NOTIFY` takes payloads shorter than 8,000 bytes.
    public var maximumPayload: Int { 7_900 }

    /// All the payloads in one statement, so in one round trip and in order. Nothing is retried:
    /// presence that can't be told now is out of date by the next try.
    public func broadcast(_ payloads: [String]) async throws {
        guard !payloads.isEmpty else { return }
        try pool.health.check()
        let logger = logger
        do {
            try await client.withConnection { connection in
                try await connection.whileOpen(watchedBy: watch) { connection in
                    // Read to the end: an error (a payload over the limit) comes with the rows.
                    for try await _ in try await connection.query(
                        "SELECT pg_notify(\(Self.broadcastChannel), payload) FROM unnest(\(payloads)::text[]) WITH ORDINALITY AS p(payload, n) ORDER BY n",
                        logger: logger)
                    {}
                }
            }
        } catch {
            throw pool.health.noting(Self.translated(error))
        }
    }

    public func followBroadcasts(_ handle: @Sendable (InstanceBroadcastEvent) async -> Void) async {
        await listener.follow(Self.broadcastChannel) { payload in
            await handle(payload.map(InstanceBroadcastEvent.payload) ?? .reconnected)
        }
    }
}
