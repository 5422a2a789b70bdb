import EmojiArtKit
import EmojiArtStore
import EmojiArtTestSupport
import Foundation
import GRDB
import Logging
import PostgresNIO
import Testing

@testable import EmojiArtStorePostgres
@testable import EmojiArtStoreSQLite

/// Databases made by earlier versions are carried forward: what they hold belongs to the local
/// user (and to the first admin once accounts are on), images and palettes keep their bytes.
@Suite("Migrations carry existing databases forward")
struct MigrationTests {
    static let documentID = UUID()
    static let paletteID = UUID()

    @Test func anSQLiteDatabaseOfTheLastReleaseKeepsEverything() async throws {
        let queue = try DatabaseQueue()
        try SQLiteDatabase.migrator.migrate(queue, upTo: "v4 log steps and request ids")
        let snapshot = Data(EmojiArtFile.write(try EmojiArtDocument(title: "Before"), as: .native).bytes)
        let edits = Data(Edit.encodeList([.retitle("After")]))
        try await queue.write { db in
            try db.execute(
                sql: """
                    INSERT INTO document (id, title, emojiCount, version, snapshot, snapshotVersion, createdAt, updatedAt)
                    VALUES (?, 'Before', 0, 0, ?, 0, 1, 1);
                    INSERT INTO palette (id, position, name, emojis) VALUES (?, 0, 'Old', '🐶🐱');
                    INSERT INTO image (id, mimeType, width, height, bytes, createdAt) VALUES ('abc', 'image/png', 1, 2, x'00', 1);
                    INSERT INTO imageSource (url, imageId) VALUES ('https://example.com/a.png', 'abc');
                    INSERT INTO editLog (documentId, version, edits, date, step, requestId)
                    VALUES (?, 1, ?, 2, 'perform', 'r-1');
                    UPDATE document SET version = 1, title = 'After' WHERE id = ?;
                    """,
                arguments: [
                    Self.documentID.uuidString, snapshot, Self.paletteID.uuidString, Self.documentID.uuidString, edits,
                    Self.documentID.uuidString,
                ])
        }
        let stores = try Stores.sqlite(queue)
        // The log, its history and its checkpoint, under the columns PostgreSQL names alike.
        let (stored, log) = try #require(try await stores.documents.loadDocument(id: Self.documentID))
        #expect(stored.version == 0 && log.map(\.version) == [1] && log.first?.requestID == "r-1")
        #expect(log.first?.step == .perform(gesture: nil) && log.first?.edits == [.retitle("After")])
        #expect(try await stores.documents.oldestCheckpointVersion(of: Self.documentID) == 0)
        #expect(try await stores.documents.listDocuments().map(\.title) == ["After"])
        try await expectCarriedForward(stores, title: "After")
    }

    /// The release before the document tables took PostgreSQL's column names: v1 to v6 and the
    /// shared migrations applied. The renaming comes after them, and nothing is lost.
    @Test func anSQLiteDatabaseOfTheReleaseBeforeTheRenamingKeepsItsLogAndHistory() async throws {
        let queue = try DatabaseQueue()
        try SQLiteDatabase.migrator.migrate(queue, upTo: "v6 history: checkpoints, authors, undo names")
        let snapshot = Data(EmojiArtFile.write(try EmojiArtDocument(title: "Before"), as: .native).bytes)
        let author = UUID()
        try await queue.write { db in
            try db.execute(
                sql: """
                    INSERT INTO document (id, title, emojiCount, version, snapshot, snapshotVersion, createdAt, updatedAt)
                    VALUES (?, 'Renamed', 0, 2, ?, 0, 1, 3);
                    INSERT INTO checkpoint (documentId, version, snapshot, date) VALUES (?, 0, ?, 1);
                    INSERT INTO editLog (documentId, version, edits, date, step, requestId, author, actionName)
                    VALUES (?, 1, ?, 2, 'perform', 'r-1', ?, NULL), (?, 2, ?, 3, 'undo', NULL, ?, 'Rename');
                    """,
                arguments: [
                    Self.documentID.uuidString, snapshot, Self.documentID.uuidString, snapshot,
                    Self.documentID.uuidString, Data(Edit.encodeList([.retitle("Renamed")])), author.uuidString,
                    Self.documentID.uuidString, Data(Edit.encodeList([.retitle("Before")])), author.uuidString,
                ])
            // The shared migrations that release had run (the later ones come after the renaming).
            for migration in SharedSchema.migrations(.sqlite) where migration.number <= 5 {
                for statement in migration.statements { try db.execute(sql: statement) }
                try db.execute(
                    sql: "INSERT INTO grdb_migrations (identifier) VALUES (?)",
                    arguments: ["shared \(migration.number) \(migration.name)"])
            }
        }
        let stores = try Stores.sqlite(queue)
        let (stored, log) = try #require(try await stores.documents.loadDocument(id: Self.documentID))
        #expect(stored.version == 0 && log.map(\.version) == [1, 2])
        #expect(log.map(\.step) == [.perform(gesture: nil), .undo] && log.map(\.author) == [author, author])
        #expect(log.map(\.displayName) == ["Rename", "Undo Rename"])
        #expect(try await stores.documents.loadCurrent(id: Self.documentID)?.document.title == "Before")
        #expect(try await stores.documents.listDocuments().map(\.version) == [2])
        #expect(try await stores.documents.checkpoint(of: Self.documentID, atOrBefore: 2)?.version == 0)
        #expect(try await stores.shares.role(of: LocalUser.id, on: Self.documentID) == .owner)
        // And it is written to under the new names.
        try await stores.documents.append(
            [LogEntry(version: 3, edits: [.retitle("After")], date: Date(timeIntervalSince1970: 4))],
            to: Self.documentID,
            summary: DocumentSummary(
                id: Self.documentID, title: "After", emojiCount: 0, version: 3,
                createdAt: Date(timeIntervalSince1970: 1), updatedAt: Date(timeIntervalSince1970: 4)))
        #expect(try await stores.documents.loadCurrent(id: Self.documentID)?.document.title == "After")
    }

    @Test(.enabled(if: TestPostgres.url != nil, "needs $EMOJIART_TEST_POSTGRES (scripts/test)"))
    func aPostgreSQLDatabaseOfTheLastReleaseKeepsEverything() async throws {
        let database = try await TestPostgres.freshDatabase()
        let logger = Logger(label: "migration-test")
        let connection = try await database.connect(logger: logger)
        let snapshot = Data(EmojiArtFile.write(try EmojiArtDocument(title: "Before"), as: .native).bytes)
        do {
            try await PostgreSQLDatabase.migrate(on: connection, upTo: 2, logger: logger)
            try await connection.query(
                """
                INSERT INTO document (id, title, emoji_count, version, snapshot, snapshot_version, created_at, updated_at)
                VALUES (\(Self.documentID), 'Before', 0, 0, \(snapshot), 0, 1, 1)
                """, logger: logger)
            try await connection.query(
                "INSERT INTO palette (id, position, name, emojis) VALUES (\(Self.paletteID), 0, 'Old', '🐶🐱')",
                logger: logger)
            try await connection.query(
                """
                INSERT INTO image (id, mime_type, width, height, bytes, created_at)
                VALUES ('abc', 'image/png', 1, 2, '\\x00'::bytea, 1)
                """, logger: logger)
            try await connection.query(
                "INSERT INTO image_source (url, image_id) VALUES ('https://example.com/a.png', 'abc')", logger: logger)
        } catch {
            try? await connection.close()
            throw error
        }
        try await connection.close()
        try await expectCarriedForward(try await .postgres(database), title: "Before")
    }

    private func expectCarriedForward(_ stores: Stores, title: String) async throws {
        #expect(try await stores.documents.loadCurrent(id: Self.documentID)?.document.title == title)
        // Its title is folded for search by the maintenance (shared migration 8), once.
        #expect(try await stores.documents.foldTitles(after: nil, limit: 10) == Self.documentID)
        #expect(try await stores.documents.foldTitles(after: nil, limit: 10) == nil)
        let found = try await stores.documents.listDocuments(
            DocumentListing(scope: .everything, titleContains: title.uppercased(), limit: 5))
        #expect(found.entries.map(\.summary.id) == [Self.documentID])
        #expect(try await stores.shares.role(of: LocalUser.id, on: Self.documentID) == .owner)
        #expect(
            try await stores.palettes.loadPalettes(owner: LocalUser.id) == [
                Palette(id: Self.paletteID, name: "Old", emojis: "🐶🐱")
            ])
        #expect(try await stores.images.loadImage(id: "abc")?.data == Data([0]))
        #expect(try await stores.images.imageID(forSource: "https://example.com/a.png") == "abc")
        // Accounts turned on: the first admin takes it all over.
        let admin = User(name: "admin", isAdmin: true)
        try await stores.users.addUser(admin, passwordHash: "x")
        #expect(try await stores.users.transferData(from: LocalUser.id, to: admin.id) == 1)
        #expect(try await stores.shares.documents(of: admin.id) == [Self.documentID: .owner])
        #expect(try await stores.palettes.loadPalettes(owner: admin.id)?.first?.name == "Old")
    }
}
