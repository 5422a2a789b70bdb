import EmojiArtStore
import Logging

extension Stores {
    /// Every store on one PostgreSQL database: connected and migrated, or failing at once with
    /// the reason.
    public static func postgres(
        _ connection: PostgresDocumentStore.Connection, logger: Logger = Logger(label: "emojiart.postgres")
    ) async throws -> Stores {
        let documents = try await PostgresDocumentStore.open(connection, logger: logger)
        return Stores(documents: documents, database: documents.sql)
    }
}
