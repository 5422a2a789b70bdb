import EmojiArtStore
import Logging

extension Stores {
    /// Every store on one PostgreSQL database: connected and migrated, or failing at once with
    /// the reason.
    public static func postgres(
        _ connection: PostgreSQLDatabase.Connection, logger: Logger = Logger(label: "emojiart.postgres")
    ) async throws -> Stores {
        Stores(database: try await PostgreSQLDatabase.open(connection, logger: logger))
    }
}
