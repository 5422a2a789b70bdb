import EmojiArtStore
import GRDB

extension Stores {
    /// Every store on one SQLite file (created and migrated if needed).
    public static func sqlite(path: String, durability: SQLiteDatabase.Durability = .full) throws -> Stores {
        Stores(database: try SQLiteDatabase(path: path, durability: durability))
    }

    /// Every store on an open database (a `DatabaseQueue` in memory, in tests), migrated; no other
    /// process is expected to write to it.
    public static func sqlite(_ writer: any DatabaseWriter) throws -> Stores {
        Stores(database: try SQLiteDatabase(migrating: writer, shared: false))
    }

    /// Every store in one SQLite database in memory (`serve --memory`, tests): nothing is saved.
    public static func inMemory() -> Stores {
        do {
            return Stores(database: try SQLiteDatabase.inMemory(), kind: "memory")
        } catch {
            // An empty database in memory fails to open or migrate only when memory itself is gone.
            fatalError("an SQLite database in memory can't be opened: \(error)")
        }
    }
}
