import EmojiArtStore
import PostgresNIO
import Synchronization

/// One entry appended to a document's log — most of what a server writes
/// (``SQLDocumentStore/appendSQL(entries:announcing:)`` for one entry) — as a statement prepared
/// once per connection, so PostgreSQL plans it once rather than on every append: planning was
/// half of what an append statement cost it (docs/PERFORMANCE.md, "A prepared append").
/// ``PostgreSQLDatabase`` runs a statement whose text is this one this way, the rest as they come.
struct PreparedAppend: PostgresPreparedStatement {
    static let sql = SQLDialect.postgres.render(
        SQLDocumentStore.appendSQL(entries: 1, announcing: SQLDialect.postgres.announce?(.resync).sql))

    /// The document's move (title, title as searched, emoji count, version, change time; where:
    /// id, version), the log row (version, edits, date, step, request id, author, action name),
    /// the announcement (channel, payload), the document's id.
    static let bindingDataTypes: [PostgresDataType] = [
        .text, .text, .int8, .int8, .float8, .uuid, .int8,
        .int8, .bytea, .float8, .text, .text, .uuid, .text,
        .text, .text,
        .uuid,
    ]

    let bindings: PostgresBindings

    /// The connections on which it failed once: they go on with the statement unprepared. A
    /// preparation that failed (a lock timeout, say) is kept failed by postgres-nio for the
    /// connection's life, and a pooler in transaction mode (PgBouncer without
    /// `max_prepared_statements`) loses prepared statements between transactions
    /// (docs/DEPLOY.md, "PostgreSQL").
    private static let failedOn = Mutex<Set<ObjectIdentifier>>([])

    /// Whether a statement of this text is run prepared on `connection`.
    static func runs(_ query: PostgresQuery, on connection: PostgresConnection) -> Bool {
        query.binds.count == bindingDataTypes.count && query.sql == sql
            && !failedOn.withLock { $0.contains(ObjectIdentifier(connection)) }
    }

    /// It failed: `underlying` says why.
    struct Failed: Error {
        let underlying: any Error

        /// Whether `error` is a failure of it that PostgreSQL answered — so the statement, and
        /// the transaction it was in, wrote nothing, and may be run again — rather than one
        /// whose outcome isn't known (the connection lost).
        static func answered(_ error: any Error) -> Bool {
            let failed = (error as? Failed) ?? ((error as? PostgresTransactionError)?.closureError as? Failed)
            return (failed?.underlying as? PSQLError)?.serverInfo != nil
        }

        /// `error`, or what it wraps if it is a failure of it.
        static func unwrapped(_ error: any Error) -> any Error {
            (error as? Failed)?.underlying ?? error
        }
    }

    /// It failed on `connection` (whatever the reason): the connection's next ones go unprepared.
    static func failed(on connection: PostgresConnection) {
        _ = failedOn.withLock { $0.insert(ObjectIdentifier(connection)) }
    }

    func makeBindings() -> PostgresBindings { bindings }

    func decodeRow(_ row: PostgresRow) -> PostgresRow { row }
}
