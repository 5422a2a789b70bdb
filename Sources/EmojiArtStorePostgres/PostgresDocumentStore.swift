import EmojiArtKit
import EmojiArtStore
import Foundation
import Logging
import PostgresNIO

/// The store for deployments that outgrow one machine: PostgreSQL through postgres-nio, so
/// several servers can share one database that is already run and backed up.
///
/// Its own tables are `document` and `edit_log`, like `SQLiteDocumentStore`'s; the other
/// aggregates' tables (images, palettes, users, sessions, tokens, members, links) are kept by
/// the shared SQL (``SharedSchema``, ``Stores/init(documents:database:)``) on the same database.
/// Dates are seconds since 1970 as `double precision`, so both stores give back exactly what
/// they were given. The schema is versioned in `emojiart_migrations` and
/// brought up to date under an advisory lock when a server starts, so instances starting
/// together migrate once.
public final class PostgresDocumentStore: SharedDocumentStore {
    /// Where the database is, from a `postgres://user:password@host:port/database` URL.
    public struct Connection: Sendable, CustomStringConvertible {
        public var host: String
        public var port: Int
        public var username: String
        public var password: String?
        public var database: String
        /// `?sslmode=disable|prefer|require` (default: prefer).
        public var sslMode: String

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
            configuration.options.maximumConnections = 16
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
    private let pool: PostgresPool
    /// The pool of connections every query goes through. A service: the server runs it in its
    /// service group (so it stops after everything that writes has); ``open(_:logger:)`` runs it
    /// for tools and tests.
    public var client: PostgresClient { pool.client }
    private let logger: Logger

    public var kind: String { "postgres" }
    /// Each append commits on a pooled connection of its own: nothing to gain from gathering.
    public var gathersAppends: Bool { false }

    /// The same database, for the shared SQL (sharing this store's connections, which stay open
    /// while either is in use).
    public var sql: PostgresDatabase { PostgresDatabase(pool: pool, logger: logger) }

    /// For tools and tests: connects, brings the schema up to date, and runs the pool of
    /// connections until ``close()``. Fails at once, saying why, if the database cannot be
    /// reached or used. (The server makes the store with ``init(connection:logger:)`` and runs
    /// ``client`` and ``migrate()`` as part of its services instead.)
    public static func open(
        _ connection: Connection, logger: Logger = Logger(label: "emojiart.postgres")
    ) async throws -> PostgresDocumentStore {
        let store = PostgresDocumentStore(connection: connection, logger: logger, runsItsPool: true)
        do {
            try await store.migrate()
        } catch {
            store.close()
            throw error
        }
        return store
    }

    /// A store whose pool of connections (``client``) the caller runs, as a service; nothing is
    /// connected yet. Call ``migrate()`` before the first query.
    public convenience init(connection: Connection, logger: Logger = Logger(label: "emojiart.postgres")) {
        self.init(connection: connection, logger: logger, runsItsPool: false)
    }

    private init(connection: Connection, logger: Logger, runsItsPool: Bool) {
        self.connection = connection
        self.logger = logger
        // The pool retries failed connections by itself; each retry is not news.
        var backgroundLogger = logger
        backgroundLogger.logLevel = max(logger.logLevel, .warning)
        pool = PostgresPool(
            PostgresClient(configuration: connection.clientConfiguration, backgroundLogger: backgroundLogger),
            runsItself: runsItsPool,
            health: DatabaseHealth(logger: logger) { [connection, logger] in
                var quiet = logger
                quiet.logLevel = .critical
                let probe = try await PostgresConnection.connect(
                    configuration: try connection.probeConfiguration(), id: 1, logger: quiet)
                defer { Task { try? await probe.close() } }
                try await probe.query("SELECT 1", logger: quiet)
            })
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

    /// Closes the connections; the store (and its ``sql``) cannot be used afterwards.
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
        var versions: [Int] = []
        for try await version in try await query(
            "SELECT version FROM emojiart_migrations ORDER BY version", logger: logger
        ).decode(Int.self) {
            versions.append(version)
        }
        return versions
    }

    public func listDocuments() async throws -> [DocumentSummary] {
        var summaries: [DocumentSummary] = []
        let rows = try await query(
            "SELECT id, title, emoji_count, version, created_at, updated_at FROM document ORDER BY updated_at DESC",
            logger: logger)
        for try await (id, title, emojiCount, version, created, updated) in rows.decode(
            (UUID, String, Int, Int, Double, Double).self)
        {
            summaries.append(
                DocumentSummary(
                    id: id, title: title, emojiCount: emojiCount, version: version,
                    createdAt: Date(timeIntervalSince1970: created), updatedAt: Date(timeIntervalSince1970: updated)))
        }
        return summaries
    }

    public func createDocument(_ record: StoredDocument, owner: UUID) async throws {
        let snapshot = Data(EmojiArtFile.write(record.document, as: .native).bytes)
        let membership = try PostgresDatabase.query(SharedStatements.owner(owner, of: record.id))
        do {
            try await transaction { connection in
                try await connection.query(
                    """
                    INSERT INTO document (id, title, emoji_count, version, snapshot, snapshot_version, created_at, updated_at)
                    VALUES (\(record.id), \(record.document.title), \(record.document.emojis.count), \(record.version),
                            \(snapshot), \(record.version), \(record.createdAt.timeIntervalSince1970),
                            \(record.updatedAt.timeIntervalSince1970))
                    """, logger: self.logger)
                try await connection.query(
                    """
                    INSERT INTO checkpoint (document_id, version, snapshot, date)
                    VALUES (\(record.id), \(record.version), \(snapshot), \(record.createdAt.timeIntervalSince1970))
                    """, logger: self.logger)
                try await connection.query(membership, logger: self.logger)
            }
        } catch {
            if case SQLConstraintViolation.foreignKey = PostgresDatabase.translated(error) {
                throw AccountStoreError.unknownUser
            }
            throw error
        }
    }

    public func loadDocument(id: UUID) async throws -> (snapshot: StoredDocument, log: [LogEntry])? {
        // One transaction, so the snapshot and the log are read at the same moment even while
        // another instance compacts.
        let rows = try await transaction { connection -> (StoredSnapshotRow, [StoredLogRow])? in
            var document: StoredSnapshotRow?
            for try await row in try await connection.query(
                "SELECT snapshot, snapshot_version, created_at, updated_at FROM document WHERE id = \(id)",
                logger: self.logger
            ).decode((Data, Int, Double, Double).self) {
                document = StoredSnapshotRow(
                    snapshot: row.0, snapshotVersion: row.1, createdAt: row.2, updatedAt: row.3)
            }
            guard let document else { return nil }
            let log = try await Self.logRows(
                of: id, after: document.snapshotVersion, on: connection, logger: self.logger)
            return (document, log)
        }
        guard let (document, log) = rows else { return nil }
        return try document.decoded(id: id, log: log)
    }

    public func logEntries(of id: UUID, after version: Int) async throws -> [LogEntry]? {
        let rows = try await transaction { connection -> [StoredLogRow]? in
            var snapshotVersion: Int?
            for try await stored in try await connection.query(
                "SELECT snapshot_version FROM document WHERE id = \(id)", logger: self.logger
            ).decode(Int.self) {
                snapshotVersion = stored
            }
            guard let snapshotVersion, snapshotVersion <= version else { return nil }
            return try await Self.logRows(of: id, after: version, on: connection, logger: self.logger)
        }
        return try rows?.map { try $0.entry(of: id) }
    }

    private static func logRows(
        of id: UUID, after version: Int, on connection: PostgresConnection, logger: Logger
    ) async throws -> [StoredLogRow] {
        try await Self.logRows(
            connection.query(
                """
                SELECT version, edits, date, step, request_id, author, action_name FROM edit_log
                WHERE document_id = \(id) AND version > \(version) ORDER BY version
                """, logger: logger))
    }

    /// Rows of `SELECT version, edits, date, step, request_id, author, action_name`.
    private static func logRows(_ rows: PostgresRowSequence) async throws -> [StoredLogRow] {
        var result: [StoredLogRow] = []
        for try await (version, edits, date, step, requestID, author, actionName) in rows.decode(
            (Int, Data, Double, String?, String?, UUID?, String?).self)
        {
            result.append(
                StoredLogRow(
                    version: version, edits: edits, date: date, step: step, requestID: requestID, author: author,
                    actionName: actionName))
        }
        return result
    }

    /// Each append in a transaction of its own, all at once on the pool's connections: the row
    /// lock an append takes keeps other documents waiting only on PostgreSQL's own commit.
    /// Each document's appends in the order given, different documents' at the same time (each
    /// on a connection of its own).
    public func append(_ appends: [LogAppend]) async throws -> [Result<Void, any Error>] {
        var byDocument: [UUID: [Int]] = [:]
        for (index, append) in appends.enumerated() { byDocument[append.id, default: []].append(index) }
        return try await withThrowingTaskGroup(of: [(Int, Result<Void, any Error>)].self) { group in
            for indices in byDocument.values {
                group.addTask {
                    var results: [(Int, Result<Void, any Error>)] = []
                    for index in indices {
                        do {
                            try await self.append(appends[index])
                            results.append((index, .success(())))
                        } catch {
                            results.append((index, .failure(error)))
                        }
                    }
                    return results
                }
            }
            var results = [Result<Void, any Error>](repeating: .success(()), count: appends.count)
            for try await finished in group {
                for (index, result) in finished { results[index] = result }
            }
            return results
        }
    }

    private func append(_ append: LogAppend) async throws {
        let (id, entries, summary) = (append.id, append.entries, append.summary)
        guard let first = entries.first?.version else { return }
        let rows = entries.map(StoredLogRow.init)
        try await transaction { connection in
            // The version check and the update are one statement inside the transaction: the
            // row lock it takes makes a second instance appending the same version wait, then
            // find the version moved and fail. A document can never fork.
            var updated = 0
            for try await _ in try await connection.query(
                """
                UPDATE document SET title = \(summary.title), emoji_count = \(summary.emojiCount),
                    version = \(summary.version), updated_at = \(summary.updatedAt.timeIntervalSince1970)
                WHERE id = \(id) AND version = \(first - 1) RETURNING 1
                """, logger: self.logger
            ) {
                updated += 1
            }
            guard updated == 1 else {
                var exists = false
                for try await _ in try await connection.query(
                    "SELECT 1 FROM document WHERE id = \(id)", logger: self.logger)
                {
                    exists = true
                }
                throw exists ? StoreError.versionConflict(id: id, expected: first - 1) : StoreError.notFound(id)
            }
            for row in rows {
                try await connection.query(
                    """
                    INSERT INTO edit_log (document_id, version, edits, date, step, request_id, author, action_name)
                    VALUES (\(id), \(row.version), \(row.edits), \(row.date), \(row.step), \(row.requestID),
                            \(row.author), \(row.actionName))
                    """, logger: self.logger)
            }
            // Delivered to every server listening when (and only if) the transaction commits.
            try await Self.notify(.appended(id, version: summary.version), on: connection, logger: self.logger)
        }
    }

    public func saveSnapshot(_ snapshot: StoredDocument) async throws {
        let bytes = Data(EmojiArtFile.write(snapshot.document, as: .native).bytes)
        try await query(
            """
            UPDATE document SET snapshot = \(bytes), snapshot_version = \(snapshot.version)
            WHERE id = \(snapshot.id) AND snapshot_version < \(snapshot.version) AND version >= \(snapshot.version)
            """, logger: logger)
    }

    // MARK: History

    public func logEntries(of id: UUID, in range: ClosedRange<Int>) async throws -> [LogEntry] {
        try await Self.logRows(
            client.query(
                """
                SELECT version, edits, date, step, request_id, author, action_name FROM edit_log
                WHERE document_id = \(id) AND version BETWEEN \(range.lowerBound) AND \(range.upperBound)
                ORDER BY version
                """, logger: logger)
        ).map { try $0.entry(of: id) }
    }

    public func recentLogEntries(of id: UUID, through version: Int, limit: Int) async throws -> [LogEntry] {
        try await Self.logRows(
            client.query(
                """
                SELECT version, edits, date, step, request_id, author, action_name FROM edit_log
                WHERE document_id = \(id) AND version <= \(version) ORDER BY version DESC LIMIT \(max(0, limit))
                """, logger: logger)
        ).map { try $0.entry(of: id) }
    }

    public func checkpoint(of id: UUID, atOrBefore version: Int) async throws -> StoredDocument? {
        var found: StoredSnapshotRow?
        for try await (snapshot, stored, date, created) in try await query(
            """
            SELECT checkpoint.snapshot, checkpoint.version, checkpoint.date, document.created_at
            FROM checkpoint JOIN document ON document.id = checkpoint.document_id
            WHERE checkpoint.document_id = \(id) AND checkpoint.version <= \(version)
            ORDER BY checkpoint.version DESC LIMIT 1
            """, logger: logger
        ).decode((Data, Int, Double, Double).self) {
            found = StoredSnapshotRow(snapshot: snapshot, snapshotVersion: stored, createdAt: created, updatedAt: date)
        }
        return try found?.document(id: id)
    }

    public func ping() async throws {
        try await query("SELECT 1", logger: logger)
    }

    public func oldestCheckpointVersion(of id: UUID) async throws -> Int? {
        var oldest: Int?
        for try await (version, ) in try await query(
            "SELECT MIN(version) FROM checkpoint WHERE document_id = \(id)", logger: logger
        ).decode((Int?,).self) {
            oldest = version
        }
        return oldest
    }

    public func saveCheckpoint(_ checkpoint: StoredDocument) async throws {
        let bytes = Data(EmojiArtFile.write(checkpoint.document, as: .native).bytes)
        try await query(
            """
            INSERT INTO checkpoint (document_id, version, snapshot, date)
            SELECT id, \(checkpoint.version), \(bytes), \(checkpoint.updatedAt.timeIntervalSince1970)
            FROM document WHERE id = \(checkpoint.id)
            ON CONFLICT DO NOTHING
            """, logger: logger)
    }

    public func dropHistory(of id: UUID, through version: Int, keeping: Set<Int>) async throws {
        let kept = keeping.sorted()
        try await transaction { connection in
            var snapshotVersion: Int?
            for try await stored in try await connection.query(
                "SELECT snapshot_version FROM document WHERE id = \(id) FOR UPDATE", logger: self.logger
            ).decode(Int.self) {
                snapshotVersion = stored
            }
            guard let snapshotVersion else { return }
            let last = min(version, snapshotVersion)
            try await connection.query(
                """
                DELETE FROM edit_log WHERE document_id = \(id) AND version <= \(last) AND NOT (version = ANY(\(kept)))
                """, logger: self.logger)
            try await connection.query(
                """
                DELETE FROM checkpoint WHERE document_id = \(id) AND version <= \(last) AND NOT (version = ANY(\(kept)))
                """, logger: self.logger)
        }
    }

    public func deleteDocument(id: UUID) async throws -> Bool {
        try await transaction { connection in
            var deleted = false
            for try await _ in try await connection.query(
                "DELETE FROM document WHERE id = \(id) RETURNING 1", logger: self.logger)
            {
                deleted = true
            }
            if deleted { try await Self.notify(.deleted(id), on: connection, logger: self.logger) }
            return deleted
        }
    }

    // MARK: Changes from every server

    /// The channel changes are announced on (`NOTIFY`), inside the transaction that makes them.
    static let channel = SQLDialect.postgresChannel

    private static func notify(_ change: StoreChange, on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query("SELECT pg_notify(\(channel), \(change.payload))", logger: logger)
    }

    /// Hands `handle` every change committed through any server on this database, this one's
    /// included, heard with `LISTEN` on a connection of its own, until the calling task is
    /// cancelled. When that connection is (re)established it says ``StoreChange/resync``:
    /// changes made meanwhile were not heard. A lost connection is retried after 0.1 … 5 s.
    public func followChanges(_ handle: @Sendable (StoreChange) async -> Void) async {
        var delay = Duration.milliseconds(100)
        while !Task.isCancelled {
            do {
                let session = try await connection.connect(logger: logger)
                pool.health.markUp()
                do {
                    try await withTaskCancellationHandler {
                        try await session.listen(on: Self.channel) { notifications in
                            delay = .milliseconds(100)
                            await handle(.resync)
                            for try await notification in notifications {
                                if let change = StoreChange(payload: notification.payload) { await handle(change) }
                            }
                        }
                    } onCancel: {
                        // Ends the wait for the next notification.
                        let closing: EventLoopFuture<Void> = session.close()
                        _ = closing
                    }
                } catch {
                    // A connection is closed whichever way listening ends (the server went
                    // away, the task was cancelled), never left to be dropped open.
                    try? await session.close()
                    throw error
                }
                try? await session.close()
            } catch {
                guard !Task.isCancelled else { break }
                // Usually the first to notice the database going away: from now on queries fail
                // fast until it answers again.
                _ = pool.health.noting(error)
                logger.warning("Listening for other servers' changes failed (\(Self.describe(error))); retrying")
            }
            try? await Task.sleep(for: delay)
            delay = min(delay * 2, .seconds(5))
        }
    }

    /// Runs `body` in a transaction; the error it throws comes out as itself, not wrapped. While
    /// the database is down, ``StoreError/unavailable(_:)`` at once (``DatabaseHealth``).
    private func transaction<Result: Sendable>(
        _ body: @Sendable (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        try pool.health.check()
        do {
            return try await client.withTransaction(logger: logger) { connection in
                try await body(connection)
            }
        } catch let error as PostgresTransactionError {
            throw pool.health.noting(error.closureError ?? error.commitError ?? error.beginError ?? error)
        } catch {
            throw pool.health.noting(error)
        }
    }

    /// One query on a pooled connection; while the database is down, ``StoreError/unavailable(_:)``
    /// at once, and a failure to reach it marks it down (``DatabaseHealth``).
    private func query(_ query: PostgresQuery, logger: Logger) async throws -> PostgresRowSequence {
        try pool.health.check()
        do {
            return try await client.query(query, logger: logger)
        } catch {
            throw pool.health.noting(error)
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
