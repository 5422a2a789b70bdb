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
                try Self.insertCheckpoint(
                    id: record.id, version: record.version, snapshot: snapshot, date: record.createdAt, in: db)
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

    private static func insertCheckpoint(id: UUID, version: Int, snapshot: Data, date: Date, in db: Database) throws {
        try db.execute(
            sql: "INSERT OR IGNORE INTO checkpoint (documentId, version, snapshot, date) VALUES (?, ?, ?, ?)",
            arguments: [id.uuidString, version, snapshot, date.timeIntervalSince1970])
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
                SELECT \(logColumns) FROM editLog
                WHERE documentId = ? AND version > ? ORDER BY version
                """,
            arguments: [id.uuidString, version]
        ).map(logRow)
    }

    private static let logColumns = "version, edits, date, step, requestId, author, actionName"

    private static func logRow(_ row: Row) -> StoredLogRow {
        StoredLogRow(
            version: row["version"], edits: row["edits"], date: row["date"], step: row["step"],
            requestID: row["requestId"], author: (row["author"] as String?).flatMap(UUID.init(uuidString:)),
            actionName: row["actionName"])
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
                    """
                    INSERT INTO editLog (documentId, version, edits, date, step, requestId, author, actionName)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    append.id.uuidString, row.version, row.edits, row.date, row.step, row.requestID,
                    row.author?.uuidString, row.actionName,
                ])
        }
    }

    public func saveSnapshot(_ snapshot: StoredDocument) async throws {
        let bytes = Data(EmojiArtFile.write(snapshot.document, as: .native).bytes)
        try await database.write { db in
            try db.execute(
                sql:
                    "UPDATE document SET snapshot = ?, snapshotVersion = ? WHERE id = ? AND snapshotVersion < ? AND version >= ?",
                arguments: [bytes, snapshot.version, snapshot.id.uuidString, snapshot.version, snapshot.version])
        }
    }

    // MARK: History

    public func logEntries(of id: UUID, in range: ClosedRange<Int>) async throws -> [LogEntry] {
        let rows = try await database.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT \(Self.logColumns) FROM editLog
                    WHERE documentId = ? AND version BETWEEN ? AND ? ORDER BY version
                    """,
                arguments: [id.uuidString, range.lowerBound, range.upperBound]
            ).map(Self.logRow)
        }
        return try rows.map { try $0.entry(of: id) }
    }

    public func recentLogEntries(of id: UUID, through version: Int, limit: Int) async throws -> [LogEntry] {
        let rows = try await database.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT \(Self.logColumns) FROM editLog
                    WHERE documentId = ? AND version <= ? ORDER BY version DESC LIMIT ?
                    """,
                arguments: [id.uuidString, version, max(0, limit)]
            ).map(Self.logRow)
        }
        return try rows.map { try $0.entry(of: id) }
    }

    public func checkpoint(of id: UUID, atOrBefore version: Int) async throws -> StoredDocument? {
        let row = try await database.read { db -> StoredSnapshotRow? in
            try Row.fetchOne(
                db,
                sql: """
                    SELECT checkpoint.snapshot, checkpoint.version, checkpoint.date, document.createdAt
                    FROM checkpoint JOIN document ON document.id = checkpoint.documentId
                    WHERE checkpoint.documentId = ? AND checkpoint.version <= ?
                    ORDER BY checkpoint.version DESC LIMIT 1
                    """,
                arguments: [id.uuidString, version]
            ).map {
                StoredSnapshotRow(
                    snapshot: $0["snapshot"], snapshotVersion: $0["version"], createdAt: $0["createdAt"],
                    updatedAt: $0["date"])
            }
        }
        return try row?.document(id: id)
    }

    public func ping() async throws {
        _ = try await database.read { db in try Int.fetchOne(db, sql: "SELECT 1") }
    }

    public func oldestCheckpointVersion(of id: UUID) async throws -> Int? {
        try await database.read { db in
            try Int.fetchOne(
                db, sql: "SELECT MIN(version) FROM checkpoint WHERE documentId = ?", arguments: [id.uuidString])
        }
    }

    public func saveCheckpoint(_ checkpoint: StoredDocument) async throws {
        let bytes = Data(EmojiArtFile.write(checkpoint.document, as: .native).bytes)
        try await database.write { db in
            guard
                try Bool.fetchOne(db, sql: "SELECT 1 FROM document WHERE id = ?", arguments: [checkpoint.id.uuidString])
                    != nil
            else { return }
            try Self.insertCheckpoint(
                id: checkpoint.id, version: checkpoint.version, snapshot: bytes, date: checkpoint.updatedAt, in: db)
        }
    }

    public func dropHistory(of id: UUID, through version: Int, keeping: Set<Int>) async throws {
        try await database.write { db in
            guard
                let snapshotVersion = try Int.fetchOne(
                    db, sql: "SELECT snapshotVersion FROM document WHERE id = ?", arguments: [id.uuidString])
            else { return }
            let last = min(version, snapshotVersion)
            let kept = keeping.filter { $0 <= last }.sorted()
            // Between each pair of kept versions (and before the first, after the last).
            var low = Int.min
            for bound in kept + [last + 1] {
                let high = bound - 1
                if low <= high {
                    for table in ["editLog", "checkpoint"] {
                        try db.execute(
                            sql: "DELETE FROM \(table) WHERE documentId = ? AND version BETWEEN ? AND ?",
                            arguments: [id.uuidString, low, high])
                    }
                }
                low = bound + 1
            }
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

    /// How many log entries a document keeps, history included (for tests).
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
