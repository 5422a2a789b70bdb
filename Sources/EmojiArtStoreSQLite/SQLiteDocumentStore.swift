import EmojiArtKit
import EmojiArtStore
import Foundation
import GRDB

/// The default store: one SQLite database (through GRDB) in WAL mode.
///
/// Tables of its own: `document` (summary columns plus the snapshot as native `.emojiart`
/// bytes) and `editLog` (one row per acknowledged change after the snapshot). The tables of the
/// other aggregates (images, palettes, users, sessions, tokens, members, links) are kept by the
/// shared SQL (``SharedSchema``, ``Stores/init(documents:database:)``) on the same database.
public final class SQLiteDocumentStore: SharedDocumentStore {
    /// How hard SQLite works to make a commit survive.
    public enum Durability: String, Sendable, CaseIterable {
        /// fsync on every commit: survives power loss and OS crashes. The default.
        case full
        /// fsync at checkpoints only: survives the process being killed (even `kill -9`), but an
        /// OS crash or power loss can lose the last commits. Faster on slow disks.
        case normal
    }

    private let database: any DatabaseWriter
    /// The same database, for the shared SQL.
    public var sql: SQLiteDatabase { SQLiteDatabase(database) }

    public var kind: String { "sqlite" }

    /// Opens (creating if needed) the database file and brings its schema up to date.
    public convenience init(path: String, durability: Durability = .full) throws {
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = \(durability == .full ? "FULL" : "NORMAL")")
        }
        try self.init(database: try DatabasePool(path: path, configuration: configuration))
    }

    /// Uses an open database (an in-memory `DatabaseQueue` in tests) and migrates it.
    public init(database: any DatabaseWriter) throws {
        self.database = database
        try SQLiteDocumentStore.migrator.migrate(database)
    }

    /// The schema's history. Shipped migrations never change; new ones are appended.
    static var migrator: DatabaseMigrator {
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
        for migration in SharedSchema.migrations(.sqlite) {
            migrator.registerMigration("shared \(migration.number) \(migration.name)") { db in
                for statement in migration.statements { try db.execute(sql: statement) }
            }
        }
        return migrator
    }

    public func listDocuments() async throws -> [DocumentSummary] {
        try await database.read { db in
            try Row.fetchAll(
                db,
                sql: "SELECT id, title, emojiCount, version, createdAt, updatedAt FROM document ORDER BY updatedAt DESC"
            ).map { row in
                DocumentSummary(
                    id: try SQLiteDocumentStore.uuid(row["id"]), title: row["title"], emojiCount: row["emojiCount"],
                    version: row["version"], createdAt: Date(timeIntervalSince1970: row["createdAt"]),
                    updatedAt: Date(timeIntervalSince1970: row["updatedAt"]))
            }
        }
    }

    public func createDocument(_ record: StoredDocument, owner: UUID) async throws {
        let snapshot = Data(EmojiArtFile.write(record.document, as: .native).bytes)
        let membership = SharedStatements.owner(owner, of: record.id)
        do {
            try await database.write { db in
                try Self.insert(record, snapshot: snapshot, in: db)
                try db.execute(membership)
            }
        } catch let error as DatabaseError where error.extendedResultCode == .SQLITE_CONSTRAINT_FOREIGNKEY {
            throw AccountStoreError.unknownUser
        }
    }

    private static func insert(_ record: StoredDocument, snapshot: Data, in db: Database) throws {
        try db.execute(
            sql: """
                INSERT INTO document (id, title, emojiCount, version, snapshot, snapshotVersion, createdAt, updatedAt)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [
                record.id.uuidString, record.document.title, record.document.emojis.count, record.version, snapshot,
                record.version, record.createdAt.timeIntervalSince1970, record.updatedAt.timeIntervalSince1970,
            ])
    }

    public func loadDocument(id: UUID) async throws -> (snapshot: StoredDocument, log: [LogEntry])? {
        // Rows are read into plain values inside the read, so the read is the asynchronous one
        // (off the cooperative threads): `Row` itself is not `Sendable`.
        let rows = try await database.read { db -> (StoredSnapshotRow, [StoredLogRow])? in
            guard
                let document = try Row.fetchOne(
                    db, sql: "SELECT snapshot, snapshotVersion, createdAt, updatedAt FROM document WHERE id = ?",
                    arguments: [id.uuidString])
            else { return nil }
            let snapshotVersion: Int = document["snapshotVersion"]
            let log = try Self.logRows(of: id, after: snapshotVersion, in: db)
            return (
                StoredSnapshotRow(
                    snapshot: document["snapshot"], snapshotVersion: snapshotVersion, createdAt: document["createdAt"],
                    updatedAt: document["updatedAt"]), log
            )
        }
        guard let (document, log) = rows else { return nil }
        return try document.decoded(id: id, log: log)
    }

    public func logEntries(of id: UUID, after version: Int) async throws -> [LogEntry]? {
        let rows = try await database.read { db -> [StoredLogRow]? in
            guard
                let snapshotVersion = try Int.fetchOne(
                    db, sql: "SELECT snapshotVersion FROM document WHERE id = ?", arguments: [id.uuidString]),
                snapshotVersion <= version
            else { return nil }
            return try Self.logRows(of: id, after: version, in: db)
        }
        return try rows?.map { try $0.entry(of: id) }
    }

    private static func logRows(of id: UUID, after version: Int, in db: Database) throws -> [StoredLogRow] {
        try Row.fetchAll(
            db,
            sql: """
                SELECT version, edits, date, step, requestId FROM editLog
                WHERE documentId = ? AND version > ? ORDER BY version
                """,
            arguments: [id.uuidString, version]
        ).map {
            StoredLogRow(
                version: $0["version"], edits: $0["edits"], date: $0["date"], step: $0["step"],
                requestID: $0["requestId"])
        }
    }

    /// Every append in one transaction (one fsync with `synchronous = FULL`), each in its own
    /// savepoint so one document's conflict fails only its own.
    public func append(_ appends: [LogAppend]) async throws -> [Result<Void, any Error>] {
        let pending = appends.map {
            PendingAppend(id: $0.id, summary: $0.summary, entries: $0.entries.map(StoredLogRow.init))
        }
        return try await database.write { db in
            pending.map { append in
                Result {
                    guard !append.entries.isEmpty else { return }
                    try db.inSavepoint {
                        try Self.write(append, in: db)
                        return .commit
                    }
                }
            }
        }
    }

    private static func write(_ append: PendingAppend, in db: Database) throws {
        let first = append.entries[0].version
        // The version check and the update are one statement inside the transaction, so two
        // writers can never both append the same version.
        try db.execute(
            sql:
                "UPDATE document SET title = ?, emojiCount = ?, version = ?, updatedAt = ? WHERE id = ? AND version = ?",
            arguments: [
                append.summary.title, append.summary.emojiCount, append.summary.version,
                append.summary.updatedAt.timeIntervalSince1970, append.id.uuidString, first - 1,
            ])
        guard db.changesCount == 1 else {
            let exists = try Bool.fetchOne(
                db, sql: "SELECT 1 FROM document WHERE id = ?", arguments: [append.id.uuidString])
            if exists == nil { throw StoreError.notFound(append.id) }
            throw StoreError.versionConflict(id: append.id, expected: first - 1)
        }
        for row in append.entries {
            try db.execute(
                sql:
                    "INSERT INTO editLog (documentId, version, edits, date, step, requestId) VALUES (?, ?, ?, ?, ?, ?)",
                arguments: [append.id.uuidString, row.version, row.edits, row.date, row.step, row.requestID])
        }
    }

    public func saveSnapshot(_ snapshot: StoredDocument) async throws {
        let bytes = Data(EmojiArtFile.write(snapshot.document, as: .native).bytes)
        try await database.write { db in
            try db.execute(
                sql:
                    "UPDATE document SET snapshot = ?, snapshotVersion = ? WHERE id = ? AND snapshotVersion < ? AND version >= ?",
                arguments: [bytes, snapshot.version, snapshot.id.uuidString, snapshot.version, snapshot.version])
            guard db.changesCount == 1 else { return }
            try db.execute(
                sql: "DELETE FROM editLog WHERE documentId = ? AND version <= ?",
                arguments: [snapshot.id.uuidString, snapshot.version])
        }
    }

    public func deleteDocument(id: UUID) async throws -> Bool {
        try await database.write { db in
            try db.execute(sql: "DELETE FROM document WHERE id = ?", arguments: [id.uuidString])
            return db.changesCount == 1
        }
    }

    /// How often ``followChanges(_:)`` looks for other processes' commits.
    public static let changeCheckInterval: Duration = .seconds(1)

    /// Says ``StoreChange/resync`` whenever another process (`emojiart palettes`, `emojiart
    /// users`, another server on the same file) has committed to the database, until the calling
    /// task is cancelled. SQLite can't announce changes as PostgreSQL's `NOTIFY` does, so this
    /// looks at `PRAGMA data_version` on the writing connection every
    /// ``changeCheckInterval``: a number that moves only when some *other* connection commits, so
    /// this server's own writes never count, and nothing else is read unless it moved.
    public func followChanges(_ handle: @Sendable (StoreChange) async -> Void) async {
        func dataVersion() async -> Int? {
            try? await database.writeWithoutTransaction { db in try Int.fetchOne(db, sql: "PRAGMA data_version") }
        }
        var last = await dataVersion()
        while !Task.isCancelled {
            try? await Task.sleep(for: Self.changeCheckInterval)
            guard let now = await dataVersion() else { continue }
            if now != last, last != nil { await handle(.resync) }
            last = now
        }
    }

    /// The number of log entries after a document's snapshot (for compaction tests).
    public func logLength(of id: UUID) async throws -> Int {
        try await database.read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM editLog WHERE documentId = ?", arguments: [id.uuidString])
                ?? 0
        }
    }

    private static func uuid(_ text: String) throws -> UUID {
        guard let id = UUID(uuidString: text) else { throw StoreError.corrupt("\"\(text)\" is not a document id") }
        return id
    }
}

/// One document's log entries waiting to be written, encoded.
struct PendingAppend: Sendable {
    var id: UUID
    var summary: DocumentSummary
    var entries: [StoredLogRow]
}
