import EmojiArtKit
import EmojiArtStore
import Foundation
import Synchronization
import Testing

@testable import EmojiArtStoreSQLite

/// SQLite keeps a document's snapshot in its row, before the columns a list entry shows: a
/// listing that read the rows would walk every snapshot's pages (100 ms for a member with 2,000
/// documents of 50 KB, against 2.5 ms from an index: docs/PERFORMANCE.md). Each listing's
/// statements are read from covering indexes only — asked of SQLite's own planner.
struct ListingPlanTests {
    /// Runs statements on SQLite, keeping the reads.
    final class Recording: SQLDatabase {
        let base: SQLiteDatabase
        let reads = Mutex<[SQLStatement]>([])
        init(_ base: SQLiteDatabase) { self.base = base }
        var dialect: SQLDialect { base.dialect }
        func read(_ statements: [SQLStatement]) async throws -> [[SQLRow]] {
            reads.withLock { $0 += statements }
            return try await base.read(statements)
        }
        func write(_ statements: [SQLStatement]) async throws -> [[SQLRow]] { try await base.write(statements) }
    }

    @Test func everyListingIsReadFromIndexesAlone() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("emojiart-plan-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let sqlite = try SQLiteDatabase(path: folder.appendingPathComponent("emojiart.sqlite").path)
        let database = Recording(sqlite)
        let store = SQLDocumentStore(database: database, kind: "sqlite")
        let users = SQLAccountStore(database: sqlite)
        let ada = User(name: "Ada", createdAt: Date())
        try await users.addUser(ada, passwordHash: "a")
        var ids: [UUID] = []
        for index in 0..<30 {
            let date = Date(timeIntervalSince1970: 1_000 + Double(index))
            let record = StoredDocument(
                id: UUID(), document: try EmojiArtDocument(title: "Document \(index)"), version: 0, createdAt: date,
                updatedAt: date)
            try await store.createDocument(record, owner: index % 2 == 0 ? ada.id : LocalUser.id)
            ids.append(record.id)
        }
        let after = DocumentListing.Position(updatedAt: 1_020, id: ids[20])
        let listings = [
            DocumentListing(scope: .everything, limit: 10),
            DocumentListing(scope: .everything, titleContains: "1", after: after, limit: 10),
            DocumentListing(scope: .visible(user: ada.id, links: [:]), limit: 10),
            DocumentListing(
                scope: .visible(user: ada.id, links: [:]), titleContains: "ument 2", after: after, limit: 5),
            DocumentListing(scope: .visible(user: ada.id, links: [ids[1]: .editor, ids[3]: .viewer]), limit: 10),
        ]
        for listing in listings {
            database.reads.withLock { $0 = [] }
            let page = try await store.listDocuments(listing)
            #expect(!page.entries.isEmpty, "\(listing)")
            let statements = database.reads.withLock { $0 }
            #expect(!statements.isEmpty)
            for statement in statements {
                let plan = try await sqlite.read(
                    SQLStatement("EXPLAIN QUERY PLAN " + statement.sql, statement.binds)
                ).compactMap { $0[3].string }
                let onDocuments = plan.filter { $0.contains(" d ") || $0.hasSuffix(" d") }
                #expect(!onDocuments.isEmpty, "\(plan)")
                #expect(onDocuments.allSatisfy { $0.contains("COVERING INDEX") }, "\(listing): \(plan)")
            }
        }
    }
}
