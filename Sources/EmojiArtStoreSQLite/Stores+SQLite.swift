import EmojiArtStore
import GRDB

extension Stores {
    /// Every store on one SQLite file (created and migrated if needed).
    public static func sqlite(path: String, durability: SQLiteDocumentStore.Durability = .full) throws -> Stores {
        let documents = try SQLiteDocumentStore(path: path, durability: durability)
        return Stores(documents: documents, database: documents.sql)
    }

    /// Every store on an open database (an in-memory `DatabaseQueue` in tests), migrated.
    public static func sqlite(_ database: any DatabaseWriter) throws -> Stores {
        let documents = try SQLiteDocumentStore(database: database)
        return Stores(documents: documents, database: documents.sql)
    }
}
