import EmojiArtStore
import Logging

extension DatabaseDriver {
    /// PostgreSQL, for several servers on one database: the `postgres://` URLs of
    /// ``PostgreSQLDatabase/Connection/init(url:)``.
    public static let postgreSQL = DatabaseDriver(
        prepare: { url, logger in
            let database = PostgreSQLDatabase(connection: try PostgreSQLDatabase.Connection(url: url), logger: logger)
            return PreparedStores(
                stores: Stores(database: database), services: [database.client], migrate: database.migrate)
        },
        open: { url, logger in try await .postgres(try PostgreSQLDatabase.Connection(url: url), logger: logger) },
        describe: { url in (try? PostgreSQLDatabase.Connection(url: url).description) ?? "PostgreSQL" })
}
