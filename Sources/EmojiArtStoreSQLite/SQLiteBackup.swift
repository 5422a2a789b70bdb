import EmojiArtStore
import Foundation
import GRDB

#if canImport(Glibc)
    import Glibc
#endif

/// Copies of a server's SQLite database, taken and put back whole (`emojiart backup`,
/// `emojiart restore`).
///
/// A backup uses SQLite's online backup API: it copies every page under one read transaction,
/// so the copy is the database at one moment — every acknowledged change up to then, none
/// half-written — while the server goes on writing in WAL mode beside it.
public enum SQLiteBackup {
    /// What a database file holds, as far as telling one from another goes.
    public struct Contents: Sendable, Equatable {
        public var documents: Int
        public var users: Int
        public var bytes: Int
    }

    /// Copies the database at `source` into a new file at `destination` (written beside it
    /// and renamed into place, so a copy that exists is whole). Fails if `source` is not an
    /// EmojiArt database or `destination` exists.
    @discardableResult
    public static func backup(database source: String, to destination: String) throws -> Contents {
        guard FileManager.default.fileExists(atPath: source) else {
            throw StoreError.unavailable("there is no database at \(source)")
        }
        guard !FileManager.default.fileExists(atPath: destination) else {
            throw StoreError.unavailable("\(destination) already exists; choose a new file for the backup")
        }
        let reader = try DatabaseQueue(path: source, configuration: readOnly)
        _ = try contents(of: reader, path: source)
        try copy(from: reader, to: destination)
        return try inspect(destination)
    }

    /// Puts a backup in place as the database at `database`. Fails if `backup` is not a
    /// whole EmojiArt database, or if `database` exists and `replacing` is false. The server
    /// using `database` must be stopped first (its open connections would keep the old file).
    @discardableResult
    public static func restore(_ backup: String, to database: String, replacing: Bool) throws -> Contents {
        let restored = try inspect(backup)
        if FileManager.default.fileExists(atPath: database) {
            guard replacing else {
                let held = (try? inspect(database)).map { " (\($0.documents) documents)" } ?? ""
                throw StoreError.unavailable(
                    "\(database) already holds a database\(held); pass --replace to overwrite it")
            }
        }
        let staging = database + ".restoring"
        try? FileManager.default.removeItem(atPath: staging)
        try copy(from: try DatabaseQueue(path: backup, configuration: readOnly), to: staging)
        for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: database + suffix) }
        // rename(2) puts the new file in place in one step, replacing any old one.
        guard rename(staging, database) == 0 else {
            let reason = String(cString: strerror(errno))
            try? FileManager.default.removeItem(atPath: staging)
            throw StoreError.unavailable("couldn't put the backup in place at \(database): \(reason)")
        }
        return restored
    }

    /// What the database at `path` holds, after checking it is a whole EmojiArt database.
    public static func inspect(_ path: String) throws -> Contents {
        guard FileManager.default.fileExists(atPath: path) else {
            throw StoreError.unavailable("there is no file at \(path)")
        }
        let reader: DatabaseQueue
        do {
            reader = try DatabaseQueue(path: path, configuration: readOnly)
        } catch {
            throw StoreError.corrupt("\(path) is not an SQLite database: \(error)")
        }
        return try contents(of: reader, path: path)
    }

    private static var readOnly: Configuration {
        var configuration = Configuration()
        configuration.readonly = true
        return configuration
    }

    private static func contents(of reader: DatabaseQueue, path: String) throws -> Contents {
        do {
            return try reader.read { db in
                guard try db.tableExists("document"), try db.tableExists("grdb_migrations") else {
                    throw StoreError.corrupt("\(path) is an SQLite database, but not an EmojiArt one")
                }
                let check = try String.fetchAll(db, sql: "PRAGMA quick_check")
                guard check == ["ok"] else {
                    throw StoreError.corrupt("\(path) is damaged: \(check.prefix(3).joined(separator: "; "))")
                }
                let bytes =
                    (try Int.fetchOne(db, sql: "PRAGMA page_count") ?? 0)
                    * (try Int.fetchOne(db, sql: "PRAGMA page_size") ?? 0)
                return Contents(
                    documents: try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM document") ?? 0,
                    users: try db.tableExists("app_user")
                        ? try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM app_user") ?? 0 : 0,
                    bytes: bytes)
            }
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError.corrupt("\(path) can't be read as an EmojiArt database: \(error)")
        }
    }

    /// Copies every page of `reader` into a new database at `destination`, atomically.
    private static func copy(from reader: DatabaseQueue, to destination: String) throws {
        let partial = destination + ".partial"
        try? FileManager.default.removeItem(atPath: partial)
        do {
            let writer = try DatabaseQueue(path: partial)
            try reader.backup(to: writer)
            // One self-contained file: the copy took the source's WAL mode; a server opening it
            // turns that back on.
            try writer.writeWithoutTransaction { try $0.execute(sql: "PRAGMA journal_mode = DELETE") }
            try writer.close()
            try FileManager.default.moveItem(atPath: partial, toPath: destination)
        } catch {
            try? FileManager.default.removeItem(atPath: partial)
            throw error
        }
    }
}
