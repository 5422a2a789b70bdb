import EmojiArtKit
import Foundation

/// Documents, their logs, history and checkpoints, written once against ``SQLDatabase``: the
/// same SQL on SQLite (a file, or memory) and PostgreSQL, which name the tables and columns alike.
///
/// Tables: `document` (the summary columns, and the snapshot as native `.emojiart` bytes at
/// `snapshot_version`), `edit_log` (one row per acknowledged change, kept past the snapshot as
/// history) and `checkpoint` (the document at a version, to read history from). What differs
/// between the databases stays with their drivers: gathering appends into one commit
/// (``SQLDatabase/writeEach(_:)``), and hearing other processes' changes
/// (``SQLDatabase/changes``).
public struct SQLDocumentStore: DocumentStore {
    public let database: any SQLDatabase
    public let kind: String

    /// - Parameter kind: the name health checks and logs give the store; the database's by default.
    public init(database: any SQLDatabase, kind: String? = nil) {
        self.database = database
        self.kind = kind ?? database.dialect.name
    }

    public var concurrentAppends: Int { database.concurrentWrites }

    public func ping() async throws {
        _ = try await database.read(SQLStatement("SELECT 1"))
    }

    public func listDocuments() async throws -> [DocumentSummary] {
        try await database.read(
            SQLStatement(
                "SELECT id, title, emoji_count, version, created_at, updated_at FROM document ORDER BY updated_at DESC")
        ).map(Self.summary)
    }

    /// A summary from the columns `id, title, emoji_count, version, created_at, updated_at`.
    static func summary(_ row: SQLRow) throws -> DocumentSummary {
        guard let id = row[0].uuidValue, let title = row[1].string, let count = row[2].int,
            let version = row[3].int, let created = row[4].double, let updated = row[5].double
        else { throw StoreError.corrupt("a document's summary can't be read") }
        return DocumentSummary(
            id: id, title: title, emojiCount: count, version: version,
            createdAt: Date(timeIntervalSince1970: created), updatedAt: Date(timeIntervalSince1970: updated))
    }

    public func createDocument(_ record: StoredDocument, owner: UUID) async throws {
        let snapshot = Self.bytes(of: record)
        do {
            try await database.write([
                // Never under the id of a deleted document: checked in the insert itself.
                SQLStatement(
                    """
                    INSERT INTO document (
                        id, title, title_key, emoji_count, version, snapshot, snapshot_version, created_at, updated_at)
                    SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?
                    WHERE NOT EXISTS (SELECT 1 FROM deleted_document WHERE id = ?)
                    RETURNING 1
                    """,
                    [
                        .uuid(record.id), .text(record.document.title),
                        .text(SearchFolding.fold(record.document.title)), .integer(record.document.emojis.count),
                        .integer(record.version), .blob(snapshot), .integer(record.version),
                        .real(record.createdAt.timeIntervalSince1970), .real(record.updatedAt.timeIntervalSince1970),
                        .uuid(record.id),
                    ], errorIfNoRow: DeletedDocumentID()),
                SQLStatement(
                    "INSERT INTO checkpoint (document_id, version, snapshot, date) VALUES (?, ?, ?, ?)",
                    [
                        .uuid(record.id), .integer(record.version), .blob(snapshot),
                        .real(record.createdAt.timeIntervalSince1970),
                    ]),
                SharedStatements.owner(owner, of: record.id),
            ])
        } catch SQLConstraintViolation.foreignKey {
            throw AccountStoreError.unknownUser
        } catch is DeletedDocumentID {
            throw StoreError.notFound(record.id)
        }
    }

    public func loadDocument(id: UUID) async throws -> (snapshot: StoredDocument, log: [LogEntry])? {
        // One read, so the snapshot and the log are read at the same moment even while another
        // server compacts.
        let results = try await database.read([
            SQLStatement(
                "SELECT snapshot, snapshot_version, created_at, updated_at FROM document WHERE id = ?", [.uuid(id)]),
            SQLStatement(
                """
                SELECT \(Self.logColumns) FROM edit_log
                WHERE document_id = ? AND version > (SELECT snapshot_version FROM document WHERE id = ?)
                ORDER BY version
                """, [.uuid(id), .uuid(id)]),
        ])
        guard let row = results[0].first else { return nil }
        return (try Self.snapshot(row, of: id).document(id: id), try results[1].map { try Self.entry($0, of: id) })
    }

    public func logEntries(of id: UUID, after version: Int) async throws -> [LogEntry]? {
        let results = try await database.read([
            SQLStatement("SELECT snapshot_version FROM document WHERE id = ?", [.uuid(id)]),
            SQLStatement(
                "SELECT \(Self.logColumns) FROM edit_log WHERE document_id = ? AND version > ? ORDER BY version",
                [.uuid(id), .integer(version)]),
        ])
        guard let snapshotVersion = results[0].first?[0].int, snapshotVersion <= version else { return nil }
        return try results[1].map { try Self.entry($0, of: id) }
    }

    /// An append whose version check matched no row: another writer moved the document on.
    private struct VersionMoved: Error {}

    public func append(_ appends: [LogAppend]) async throws -> [Result<Void, any Error>] {
        guard database.dialect.writesInWith else { return try await appendInStatements(appends) }
        var results: [Result<Void, any Error>?] = appends.map { $0.entries.isEmpty ? .success(()) : nil }
        // Those too long for one statement's binds go alone, the old way; the rest together.
        let long = appends.indices.filter { appends[$0].entries.count > Self.mostEntriesInOneStatement }
        let together = appends.indices.filter {
            !appends[$0].entries.isEmpty && appends[$0].entries.count <= Self.mostEntriesInOneStatement
        }
        do {
            for index in long { results[index] = try await appendInStatements([appends[index]])[0] }
            let written = try await appendTogether(together.map { appends[$0] })
            for (index, result) in zip(together, written) { results[index] = result }
        } catch {
            // The database failed: what committed before stays so, the rest fail with it.
            return results.map { $0 ?? .failure(error) }
        }
        return results.map { $0 ?? .success(()) }
    }

    /// Appends, each one statement (``appendStatement(_:)``), in one transaction: one commit for
    /// all, where a commit is what costs PostgreSQL most. The statements go in the order of their
    /// documents' ids, so two servers' transactions take the documents' row locks in the same
    /// order and can never deadlock. A refused append (a conflict, a document gone) is a row, not
    /// an error, so it doesn't stop the others. Should a statement break a constraint, the
    /// transaction is rolled back — certainly, as the statement failed before `COMMIT` — and
    /// each append is written alone, so it fails alone. Any other failure throws: whether a
    /// transaction whose `COMMIT` failed was written can't be known, so nothing is written again.
    private func appendTogether(_ appends: [LogAppend]) async throws -> [Result<Void, any Error>] {
        guard appends.count > 1 else { return try await appendTogether(one: appends) }
        // By id, and one document's appends in the order given (they build on each other).
        let order = appends.indices.sorted {
            (appends[$0].id.uuidString, $0) < (appends[$1].id.uuidString, $1)
        }
        let written = order.map { appendStatement(appends[$0]) }
        let rows: [[SQLRow]]
        do {
            rows = try await database.write(written.map(\.statement))
        } catch is SQLConstraintViolation {
            return try await appendTogether(one: appends)
        }
        var results = [Result<Void, any Error>](repeating: .success(()), count: appends.count)
        for (position, index) in order.enumerated() {
            results[index] = written[position].result(rows[position].first)
        }
        return results
    }

    /// Each append in a transaction of its own (one alone, or after a shared one was refused):
    /// one breaking a constraint fails alone. Should the database fail, the appends written
    /// before stay written and this one and the rest fail with its error.
    private func appendTogether(one appends: [LogAppend]) async throws -> [Result<Void, any Error>] {
        var results: [Result<Void, any Error>] = []
        for append in appends {
            let (statement, result) = appendStatement(append)
            do {
                results.append(result(try await database.write(statement).first))
            } catch let error as SQLConstraintViolation {
                results.append(.failure(error))
            } catch {
                return results + Array(repeating: .failure(error), count: appends.count - results.count)
            }
        }
        return results
    }

    /// The most log rows one statement appends (7 binds each, under PostgreSQL's 65,535); a
    /// longer batch (a window's backlog after a long outage) goes row by row.
    static let mostEntriesInOneStatement = 2_000

    /// Each append in a transaction of its own (``SQLDatabase/writeEach(_:)``: on SQLite, all
    /// in one): its version check and move, its log's rows, its announcement.
    private func appendInStatements(_ appends: [LogAppend]) async throws -> [Result<Void, any Error>] {
        let writes = appends.map { append -> [SQLStatement] in
            guard let first = append.entries.first?.version else { return [] }
            let summary = append.summary
            let exists = SQLStatement(
                "SELECT 1 FROM document WHERE id = ?", [.uuid(append.id)], errorIfNoRow: StoreError.notFound(append.id))
            // The version check and the update are one statement inside the transaction (which
            // takes the row's lock on PostgreSQL): two writers can never both append the same
            // version, so a document can never fork.
            let update = SQLStatement(
                """
                UPDATE document SET title = ?, title_key = ?, emoji_count = ?, version = ?, updated_at = ?
                WHERE id = ? AND version = ? RETURNING 1
                """,
                Self.moveBinds(append, from: first - 1), errorIfNoRow: VersionMoved())
            let inserts = append.entries.map { entry in
                SQLStatement(
                    """
                    INSERT INTO edit_log (document_id, version, edits, date, step, request_id, author, action_name)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                    [.uuid(append.id)] + Self.logBinds(entry))
            }
            // Heard by every server listening when, and only if, the append commits.
            return [exists, update] + inserts
                + database.dialect.announcing(.appended(append.id, version: summary.version))
        }
        let nonEmpty = writes.indices.filter { !writes[$0].isEmpty }
        let written = try await database.writeEach(nonEmpty.map { writes[$0] })
        var results = [Result<Void, any Error>](repeating: .success(()), count: appends.count)
        for (index, result) in zip(nonEmpty, written) {
            guard case .failure(let error) = result else { continue }
            let append = appends[index]
            results[index] = .failure(
                error is VersionMoved
                    ? StoreError.versionConflict(id: append.id, expected: append.entries[0].version - 1) : error)
        }
        return results
    }

    /// One append as one statement, where the database takes writes inside `WITH`
    /// (PostgreSQL): the version check and the move, the log's rows and the announcement in one
    /// round trip, instead of six statements and their round trips (docs/PERFORMANCE.md, "One
    /// statement per append"). Its one row says what happened — the document moved (then
    /// everything was written), or it is at another version, or it is gone — which `result`
    /// reads. The statement fails only if the database does; a refused append is its result.
    private func appendStatement(_ append: LogAppend) -> (
        statement: SQLStatement, result: @Sendable (SQLRow?) -> Result<Void, any Error>
    ) {
        let first = append.entries[0].version
        let announcement = database.dialect.announce?(.appended(append.id, version: append.summary.version))
        let statement = SQLStatement(
            Self.appendSQL(entries: append.entries.count, announcing: announcement?.sql),
            Self.moveBinds(append, from: first - 1) + append.entries.flatMap(Self.logBinds)
                + (announcement?.binds ?? []) + [.uuid(append.id)])
        let (id, count) = (append.id, append.entries.count)
        return (
            statement,
            { row in
                guard let row, let moved = row[0].int, let logged = row[1].int else {
                    return .failure(StoreError.corrupt("an append answered no row"))
                }
                if moved == 1 {
                    guard logged == count else {
                        return .failure(StoreError.corrupt("an append wrote \(logged) of \(count) log rows"))
                    }
                    return .success(())
                }
                return .failure(
                    row[3].int == 1
                        ? StoreError.versionConflict(id: id, expected: first - 1) : StoreError.notFound(id))
            }
        )
    }

    /// The statement of ``appendStatement(_:)`` for `entries` log rows, with `announcing` (the
    /// dialect's announcement, `SELECT pg_notify(?, ?)`) run once if the document moved. One
    /// entry's is the same text every time: PostgreSQL prepares it once per connection
    /// (EmojiArtStorePostgres, `PreparedAppend`).
    public static func appendSQL(entries: Int, announcing: String?) -> String {
        let rows =
            Array(repeating: "(?::bigint, ?::bytea, ?::double precision, ?::text, ?::text, ?::uuid, ?::text)", count: 1)
            + Array(repeating: "(?, ?, ?, ?, ?, ?, ?)", count: entries - 1)
        return """
            WITH moved AS (
                UPDATE document SET title = ?, title_key = ?, emoji_count = ?, version = ?, updated_at = ?
                WHERE id = ? AND version = ? RETURNING id
            ), logged AS (
                INSERT INTO edit_log (document_id, version, edits, date, step, request_id, author, action_name)
                SELECT moved.id, entry.* FROM moved, (VALUES \(rows.joined(separator: ", "))) AS entry
                RETURNING 1
            ), announced AS (
                \(announcing.map { "\($0) FROM moved" } ?? "SELECT 1 FROM moved WHERE false")
            )
            SELECT (SELECT count(*) FROM moved), (SELECT count(*) FROM logged), (SELECT count(*) FROM announced),
                EXISTS (SELECT 1 FROM document WHERE id = ?)
            """
    }

    /// The binds of the document's move: its new summary (its title also as searched), where it
    /// is at `version`.
    private static func moveBinds(_ append: LogAppend, from version: Int) -> [SQLValue] {
        let summary = append.summary
        return [
            .text(summary.title), .text(SearchFolding.fold(summary.title)), .integer(summary.emojiCount),
            .integer(summary.version),
            .real(summary.updatedAt.timeIntervalSince1970), .uuid(append.id), .integer(version),
        ]
    }

    /// A log row's binds after its document's id: version, edits, date, step, request id,
    /// author, action name.
    private static func logBinds(_ entry: LogEntry) -> [SQLValue] {
        [
            .integer(entry.version), .blob(Data(Edit.encodeList(entry.edits))),
            .real(entry.date.timeIntervalSince1970), .optional(entry.step.storedForm), .optional(entry.requestID),
            entry.author.map(SQLValue.uuid) ?? .null, .optional(entry.actionName),
        ]
    }

    public func saveSnapshot(_ snapshot: StoredDocument) async throws {
        try await database.write(
            SQLStatement(
                """
                UPDATE document SET snapshot = ?, snapshot_version = ?
                WHERE id = ? AND snapshot_version < ? AND version >= ?
                """,
                [
                    .blob(Self.bytes(of: snapshot)), .integer(snapshot.version), .uuid(snapshot.id),
                    .integer(snapshot.version), .integer(snapshot.version),
                ]))
    }

    // MARK: History

    public func logEntries(of id: UUID, in range: ClosedRange<Int>) async throws -> [LogEntry] {
        try await database.read(
            SQLStatement(
                """
                SELECT \(Self.logColumns) FROM edit_log
                WHERE document_id = ? AND version BETWEEN ? AND ? ORDER BY version
                """, [.uuid(id), .integer(range.lowerBound), .integer(range.upperBound)])
        ).map { try Self.entry($0, of: id) }
    }

    public func version(ofRequest requestID: String, in id: UUID, after version: Int) async throws -> Int? {
        // One probe of edit_log_by_request (shared migration 7).
        try await database.read(
            SQLStatement(
                """
                SELECT version FROM edit_log
                WHERE document_id = ? AND version > ? AND request_id = ? ORDER BY version LIMIT 1
                """, [.uuid(id), .integer(version), .text(requestID)])
        ).first?[0].int
    }

    public func firstRequest(in id: UUID, claiming claim: String) async throws -> (requestID: String, version: Int)? {
        // One probe of edit_log_by_key (shared migration 9), its expressions spelled as there. A
        // claim has one request, two at most after a race between servers: the oldest is picked
        // here, as an ORDER BY would lead SQLite to walk the document's log in version order.
        let rows = try await database.read(
            SQLStatement(
                """
                SELECT request_id, version FROM edit_log
                WHERE document_id = ? AND \(SharedSchema.keyedRequest) AND \(SharedSchema.requestClaim) = ?
                """, [.uuid(id), .text(claim)]))
        return try rows.map { row in
            guard let requestID = row[0].string, let version = row[1].int else {
                throw StoreError.corrupt("a log entry's request id can't be read")
            }
            return (requestID, version)
        }.min { $0.version < $1.version }
    }

    public func recentLogEntries(of id: UUID, through version: Int, limit: Int) async throws -> [LogEntry] {
        try await database.read(
            SQLStatement(
                """
                SELECT \(Self.logColumns) FROM edit_log
                WHERE document_id = ? AND version <= ? ORDER BY version DESC LIMIT ?
                """, [.uuid(id), .integer(version), .integer(max(0, limit))])
        ).map { try Self.entry($0, of: id) }
    }

    public func checkpoint(of id: UUID, atOrBefore version: Int) async throws -> StoredDocument? {
        try await database.read(
            SQLStatement(
                """
                SELECT checkpoint.snapshot, checkpoint.version, document.created_at, checkpoint.date
                FROM checkpoint JOIN document ON document.id = checkpoint.document_id
                WHERE checkpoint.document_id = ? AND checkpoint.version <= ?
                ORDER BY checkpoint.version DESC LIMIT 1
                """, [.uuid(id), .integer(version)])
        ).first.map { try Self.snapshot($0, of: id).document(id: id) }
    }

    public func oldestCheckpointVersion(of id: UUID) async throws -> Int? {
        try await database.read(SQLStatement("SELECT MIN(version) FROM checkpoint WHERE document_id = ?", [.uuid(id)]))
            .first?[0].int
    }

    public func saveCheckpoint(_ checkpoint: StoredDocument) async throws {
        // Written only while the document exists.
        try await database.write(
            SQLStatement(
                """
                INSERT INTO checkpoint (document_id, version, snapshot, date)
                SELECT id, ?, ?, ? FROM document WHERE id = ?
                ON CONFLICT DO NOTHING
                """,
                [
                    .integer(checkpoint.version), .blob(Self.bytes(of: checkpoint)),
                    .real(checkpoint.updatedAt.timeIntervalSince1970), .uuid(checkpoint.id),
                ]))
    }

    public func dropHistory(of id: UUID, through version: Int, keeping: Set<Int>) async throws {
        // Never past the snapshot opening starts from.
        var condition =
            "document_id = ? AND version <= ? AND version <= (SELECT snapshot_version FROM document WHERE id = ?)"
        let kept = keeping.filter { $0 <= version }.sorted()
        if !kept.isEmpty {
            condition += " AND version NOT IN (\(Array(repeating: "?", count: kept.count).joined(separator: ", ")))"
        }
        let binds: [SQLValue] = [.uuid(id), .integer(version), .uuid(id)] + kept.map(SQLValue.integer)
        try await database.write([
            SQLStatement("DELETE FROM edit_log WHERE \(condition)", binds),
            SQLStatement("DELETE FROM checkpoint WHERE \(condition)", binds),
        ])
    }

    /// A delete that matched no row.
    private struct NoSuchDocument: Error {}
    private struct DeletedDocumentID: Error {}

    public func deleteDocument(id: UUID) async throws -> Bool {
        do {
            // Its log, checkpoints, members and links go with it (`ON DELETE CASCADE`).
            try await database.write(
                [
                    SQLStatement(
                        "DELETE FROM document WHERE id = ? RETURNING 1", [.uuid(id)], errorIfNoRow: NoSuchDocument()),
                    SQLStatement(
                        "INSERT INTO deleted_document (id, deleted_at) VALUES (?, ?) ON CONFLICT DO NOTHING",
                        [.uuid(id), .real(Date().timeIntervalSince1970)]),
                ]
                    + database.dialect.announcing(.deleted(id)))
            return true
        } catch is NoSuchDocument {
            return false
        }
    }

    /// How many log entries a document keeps, history included (for tests).
    public func logLength(of id: UUID) async throws -> Int {
        try await database.read(SQLStatement("SELECT COUNT(*) FROM edit_log WHERE document_id = ?", [.uuid(id)]))
            .first?[0].int ?? 0
    }

    // MARK: Rows

    private static let logColumns = "version, edits, date, step, request_id, author, action_name"

    private static func bytes(of document: StoredDocument) -> Data {
        Data(EmojiArtFile.write(document.document, as: .native).bytes)
    }

    /// A row of `SELECT snapshot, <version>, created_at, <date>`.
    private static func snapshot(_ row: SQLRow, of id: UUID) throws -> StoredSnapshotRow {
        guard let snapshot = row[0].data, let version = row[1].int, let created = row[2].double,
            let updated = row[3].double
        else { throw StoreError.corrupt("document \(id)'s snapshot can't be read") }
        return StoredSnapshotRow(snapshot: snapshot, snapshotVersion: version, createdAt: created, updatedAt: updated)
    }

    /// A row of `SELECT` ``logColumns``.
    private static func entry(_ row: SQLRow, of id: UUID) throws -> LogEntry {
        guard let version = row[0].int, let edits = row[1].data, let date = row[2].double else {
            throw StoreError.corrupt("a log entry of document \(id) can't be read")
        }
        return try StoredLogRow(
            version: version, edits: edits, date: date, step: row[3].string, requestID: row[4].string,
            author: row[5].uuidValue, actionName: row[6].string
        ).entry(of: id)
    }
}
