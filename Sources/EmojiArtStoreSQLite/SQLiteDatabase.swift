import EmojiArtStore
import Foundation
import GRDB

/// The default database: one SQLite file (through GRDB) in WAL mode, or memory. Every store's SQL
/// runs on it (``SQLDocumentStore``, the shared stores; ``Stores/sqlite(path:durability:)``);
/// what is SQLite's own is here: the schema's history, the group commit, and hearing other
/// processes' commits.
public struct SQLiteDatabase: SQLDatabase {
    /// How hard SQLite works to make a commit survive.
    public enum Durability: String, Sendable, CaseIterable {
        /// fsync on every commit: survives power loss and OS crashes. The default.
        case full
        /// fsync at checkpoints only: survives the process being killed (even `kill -9`), but an
        /// OS crash or power loss can lose the last commits. Faster on slow disks.
        case normal
    }

    let writer: any DatabaseWriter
    /// Whether other processes may open the same file (the command line beside a server), so
    /// their commits are watched for.
    private let shared: Bool
    /// A file's log copied into it off the commits' path (nil in memory).
    let checkpointer: WALCheckpointer?

    /// Opens (creating if needed) the database file and brings its schema up to date.
    public init(path: String, durability: Durability = .full) throws {
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = \(durability == .full ? "FULL" : "NORMAL")")
            // Checkpoints are WALCheckpointer's, not the commits'.
            try db.execute(sql: "PRAGMA wal_autocheckpoint = \(WALCheckpointer.fallbackPages)")
        }
        try self.init(migrating: try DatabasePool(path: path, configuration: configuration), shared: true)
    }

    /// An empty database in memory, migrated: nothing is saved, and no one else sees it.
    public static func inMemory() throws -> SQLiteDatabase {
        try SQLiteDatabase(migrating: try DatabaseQueue(), shared: false)
    }

    /// Uses an open database and brings its schema up to date.
    ///
    /// - Parameter shared: whether other processes write to it too (a file), so
    ///   ``changes`` watches for their commits.
    public init(migrating writer: any DatabaseWriter, shared: Bool) throws {
        try Self.migrator.migrate(writer)
        self.writer = writer
        self.shared = shared
        checkpointer = writer is DatabasePool ? try WALCheckpointer(path: writer.path) : nil
    }

    public var dialect: SQLDialect { .sqlite }

    /// How often ``changes`` looks for other processes' commits.
    public static let changeCheckInterval: Duration = .seconds(1)

    /// The schema's history. Shipped migrations never change; new ones are appended.
    public static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1 documents, edit log, palettes") { db in
            try db.execute(
                sql: """
                    CREATE TABLE document (
                        id TEXT PRIMARY KEY NOT NULL,
                        title TEXT NOT NULL,
                        emojiCount INTEGER NOT NULL,
                        version INTEGER NOT NULL,
                        snapshot BLOB NOT NULL,
                        snapshotVersion INTEGER NOT NULL,
                        createdAt REAL NOT NULL,
                        updatedAt REAL NOT NULL
                    );
                    CREATE TABLE editLog (
                        documentId TEXT NOT NULL REFERENCES document(id) ON DELETE CASCADE,
                        version INTEGER NOT NULL,
                        edits BLOB NOT NULL,
                        date REAL NOT NULL,
                        PRIMARY KEY (documentId, version)
                    ) WITHOUT ROWID;
                    CREATE TABLE palette (
                        id TEXT PRIMARY KEY NOT NULL,
                        position INTEGER NOT NULL,
                        name TEXT NOT NULL,
                        emojis TEXT NOT NULL
                    );
                    """)
        }
        migrator.registerMigration("v2 content-addressed images") { db in
            try db.execute(
                sql: """
                    CREATE TABLE image (
                        id TEXT PRIMARY KEY NOT NULL,
                        mimeType TEXT NOT NULL,
                        width INTEGER NOT NULL,
                        height INTEGER NOT NULL,
                        bytes BLOB NOT NULL,
                        createdAt REAL NOT NULL
                    ) WITHOUT ROWID;
                    """)
        }
        migrator.registerMigration("v3 image sources") { db in
            try db.execute(
                sql: """
                    CREATE TABLE imageSource (
                        url TEXT PRIMARY KEY NOT NULL,
                        imageId TEXT NOT NULL REFERENCES image(id) ON DELETE CASCADE
                    ) WITHOUT ROWID;
                    """)
        }
        migrator.registerMigration("v4 log steps and request ids") { db in
            try db.execute(
                sql: """
                    ALTER TABLE editLog ADD COLUMN step TEXT;
                    ALTER TABLE editLog ADD COLUMN requestId TEXT;
                    """)
        }
        // The image tables as PostgreSQL names them, so one SQL serves both.
        migrator.registerMigration("v5 image tables named for the shared SQL") { db in
            try db.execute(
                sql: """
                    ALTER TABLE image RENAME COLUMN mimeType TO mime_type;
                    ALTER TABLE image RENAME COLUMN createdAt TO created_at;
                    ALTER TABLE imageSource RENAME TO image_source;
                    ALTER TABLE image_source RENAME COLUMN imageId TO image_id;
                    """)
        }
        // History: the log is kept past the snapshot, with checkpoints to read old versions
        // from. What was compacted away before is gone; history starts at the snapshot.
        migrator.registerMigration("v6 history: checkpoints, authors, undo names") { db in
            try db.execute(
                sql: """
                    ALTER TABLE editLog ADD COLUMN author TEXT;
                    ALTER TABLE editLog ADD COLUMN actionName TEXT;
                    CREATE TABLE checkpoint (
                        documentId TEXT NOT NULL REFERENCES document(id) ON DELETE CASCADE,
                        version INTEGER NOT NULL,
                        snapshot BLOB NOT NULL,
                        date REAL NOT NULL,
                        PRIMARY KEY (documentId, version)
                    ) WITHOUT ROWID;
                    INSERT INTO checkpoint (documentId, version, snapshot, date)
                    SELECT id, snapshotVersion, snapshot,
                        COALESCE((SELECT MIN(date) FROM editLog WHERE documentId = document.id), updatedAt)
                    FROM document;
                    """)
        }
        // The document tables as PostgreSQL names them, so one SQL serves both (SQLDocumentStore).
        migrator.registerMigration("v7 document tables named for the shared SQL") { db in
            try db.execute(
                sql: """
                    ALTER TABLE document RENAME COLUMN emojiCount TO emoji_count;
                    ALTER TABLE document RENAME COLUMN snapshotVersion TO snapshot_version;
                    ALTER TABLE document RENAME COLUMN createdAt TO created_at;
                    ALTER TABLE document RENAME COLUMN updatedAt TO updated_at;
                    ALTER TABLE editLog RENAME TO edit_log;
                    ALTER TABLE edit_log RENAME COLUMN documentId TO document_id;
                    ALTER TABLE edit_log RENAME COLUMN requestId TO request_id;
                    ALTER TABLE edit_log RENAME COLUMN actionName TO action_name;
                    ALTER TABLE checkpoint RENAME COLUMN documentId TO document_id;
                    CREATE INDEX document_by_update ON document (updated_at DESC);
                    """)
        }
        for migration in SharedSchema.migrations(.sqlite) {
            migrator.registerMigration("shared \(migration.number) \(migration.name)") { db in
                for statement in migration.statements { try db.execute(sql: statement) }
            }
        }
        return migrator
    }

    public func read(_ statements: [SQLStatement]) async throws -> [[SQLRow]] {
        let rows = try await writer.read { db in try statements.map { try Self.run($0, in: db) } }
        for (statement, rows) in zip(statements, rows) where rows.isEmpty {
            if let error = statement.errorIfNoRow { throw error }
        }
        return rows
    }

    public func write(_ statements: [SQLStatement]) async throws -> [[SQLRow]] {
        do {
            // Thrown inside the transaction, so GRDB rolls it back.
            return try await writer.write { db in try Self.run(statements, in: db) }
        } catch {
            throw Self.translated(error)
        }
    }

    /// Every write in one transaction (one fsync with `synchronous = FULL`), each in a savepoint
    /// of its own so that one failing fails only itself.
    public func writeEach(_ writes: [[SQLStatement]]) async throws -> [Result<[[SQLRow]], any Error>] {
        try await writer.write { db in
            writes.map { statements in
                Result {
                    var rows: [[SQLRow]] = []
                    do {
                        try db.inSavepoint {
                            rows = try Self.run(statements, in: db)
                            return .commit
                        }
                    } catch {
                        throw Self.translated(error)
                    }
                    return rows
                }
            }
        }
    }

    public var changes: (any StoreChangeFeed)? { shared ? SQLiteChanges(writer: writer) : nil }

    /// Runs statements in order inside GRDB's transaction: the rows of each. One marked
    /// ``SQLStatement/errorIfNoRow`` that returns nothing throws its error.
    private static func run(_ statements: [SQLStatement], in db: Database) throws -> [[SQLRow]] {
        try statements.map { statement in
            let rows = try run(statement, in: db)
            if rows.isEmpty, let error = statement.errorIfNoRow { throw error }
            return rows
        }
    }

    /// Runs one statement: its rows (none for most writes). Statements are compiled once per
    /// connection and kept (compiling an edit's few statements each time was a tenth of what an
    /// edit cost); those with more than ``cachedStatementBinds`` values — lists written for one
    /// call, `IN (?, ?, …)` — are compiled each time, so the kept ones stay a fixed few.
    static func run(_ statement: SQLStatement, in db: Database) throws -> [SQLRow] {
        let arguments = StatementArguments(statement.binds.map(\.databaseValue))
        let compiled =
            statement.binds.count <= cachedStatementBinds
            ? try db.cachedStatement(sql: statement.sql) : try db.makeStatement(sql: statement.sql)
        return try Row.fetchAll(compiled, arguments: arguments).map { row in
            row.databaseValues.map(SQLValue.init)
        }
    }

    /// Statements with at most this many values are kept compiled (``run(_:in:)``).
    static let cachedStatementBinds = 16

    /// Constraint violations as ``SQLConstraintViolation``; everything else as it came.
    private static func translated(_ error: any Error) -> any Error {
        guard let error = error as? DatabaseError, error.resultCode == .SQLITE_CONSTRAINT else { return error }
        switch error.extendedResultCode {
        case .SQLITE_CONSTRAINT_FOREIGNKEY: return SQLConstraintViolation.foreignKey
        case .SQLITE_CONSTRAINT_UNIQUE, .SQLITE_CONSTRAINT_PRIMARYKEY: return SQLConstraintViolation.unique
        default: return error
        }
    }
}

/// Other processes' commits to an SQLite file (`emojiart palettes`, `emojiart users`, another
/// server on the same file), heard as ``StoreChange/resync``.
struct SQLiteChanges: StoreChangeFeed {
    let writer: any DatabaseWriter

    /// Says ``StoreChange/resync`` whenever another process has committed to the database, until
    /// the calling task is cancelled. SQLite can't announce changes as PostgreSQL's `NOTIFY`
    /// does, so this looks at `PRAGMA data_version` on the writing connection every
    /// ``SQLiteDatabase/changeCheckInterval``: a number that moves only when some *other* connection commits, so this
    /// server's own writes never count, and nothing else is read unless it moved.
    func followChanges(_ handle: @Sendable (StoreChange) async -> Void) async {
        func dataVersion() async -> Int? {
            try? await writer.writeWithoutTransaction { db in try Int.fetchOne(db, sql: "PRAGMA data_version") }
        }
        var last = await dataVersion()
        while !Task.isCancelled {
            try? await Task.sleep(for: SQLiteDatabase.changeCheckInterval)
            guard let now = await dataVersion() else { continue }
            if now != last, last != nil { await handle(.resync) }
            last = now
        }
    }
}

extension SQLValue {
    var databaseValue: DatabaseValue {
        switch self {
        case .null: .null
        case .integer(let value): value.databaseValue
        case .real(let value): value.databaseValue
        case .text(let value): value.databaseValue
        case .blob(let value): value.databaseValue
        case .uuid(let value): value.uuidString.databaseValue
        }
    }

    init(_ value: DatabaseValue) {
        switch value.storage {
        case .null: self = .null
        case .int64(let number): self = .integer(Int(number))
        case .double(let number): self = .real(number)
        case .string(let text): self = .text(text)
        case .blob(let data): self = .blob(data)
        }
    }
}
