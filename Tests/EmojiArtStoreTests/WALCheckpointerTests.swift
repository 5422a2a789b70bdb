import EmojiArtKit
import EmojiArtStore
import Foundation
import GRDB
import Testing

@testable import EmojiArtStoreSQLite

/// A file's write-ahead log is copied into it by a connection of its own, not by the commit
/// that fills it (a stall every commit behind it waited for: docs/PERFORMANCE.md).
struct WALCheckpointerTests {
    @Test func theLogIsCopiedOffTheCommitsPath() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("emojiart-wal-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("emojiart.sqlite").path
        let database = try SQLiteDatabase(path: path)
        let checkpointer = try #require(database.checkpointer)
        let pages = try await database.writer.read { db in try Int.fetchOne(db, sql: "PRAGMA wal_autocheckpoint") }
        #expect(pages == WALCheckpointer.fallbackPages, "the commits checkpoint only far behind")

        let store = SQLDocumentStore(database: database, kind: "sqlite")
        let date = Date(timeIntervalSince1970: 1_000)
        for index in 0..<50 {
            try await store.createDocument(
                StoredDocument(
                    id: UUID(), document: try EmojiArtDocument(title: "Document \(index)"), version: 0,
                    createdAt: date, updatedAt: date),
                owner: LocalUser.id)
        }
        let (frames, copied) = try await checkpointer.checkpoint()
        #expect(frames > 0 && copied == frames, "every frame of the log is in the file")
        #expect(try await store.listDocuments().count == 50)
        // In memory there is no log to copy.
        #expect(try SQLiteDatabase.inMemory().checkpointer == nil)
    }
}
