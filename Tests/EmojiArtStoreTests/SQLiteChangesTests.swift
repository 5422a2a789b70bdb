import EmojiArtKit
import EmojiArtStore
import EmojiArtStoreSQLite
import Foundation
import Synchronization
import Testing

/// The server hears what another process (the command line) commits to its SQLite file, and
/// not its own commits.
struct SQLiteChangesTests {
    private func document(_ title: String) throws -> StoredDocument {
        let date = Date(timeIntervalSince1970: 1_000)
        return StoredDocument(
            id: UUID(), document: try EmojiArtDocument(title: title), version: 0, createdAt: date, updatedAt: date)
    }

    /// Waits up to `seconds` for `condition`.
    private func eventually(within seconds: Double, _ condition: () -> Bool) async throws -> Bool {
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        while ContinuousClock.now < deadline {
            if condition() { return true }
            try await Task.sleep(for: .milliseconds(50))
        }
        return condition()
    }

    @Test func anotherProcessesCommitsAreHeardAndOurOwnAreNot() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("emojiart-changes-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("emojiart.sqlite").path
        let server = try Stores.sqlite(path: path)
        // Its own connections, as `emojiart palettes` in another process has.
        let commandLine = try Stores.sqlite(path: path)
        let changes = try #require(server.changes)
        let heard = Mutex<[StoreChange]>([])
        let following = Task { await changes.followChanges { change in heard.withLock { $0.append(change) } } }
        defer { following.cancel() }
        try await Task.sleep(for: .milliseconds(300))

        try await server.documents.createDocument(try document("Ours"), owner: LocalUser.id)
        try await Task.sleep(for: SQLiteDatabase.changeCheckInterval * 2)
        #expect(heard.withLock { $0 }.isEmpty, "the server's own commit was reported as another's")

        try await commandLine.documents.createDocument(try document("Theirs"), owner: LocalUser.id)
        #expect(try await eventually(within: 3) { heard.withLock { $0 } == [.resync] })
        try await Task.sleep(for: SQLiteDatabase.changeCheckInterval * 2)
        #expect(heard.withLock { $0 } == [.resync], "one commit, reported once")
    }
}
