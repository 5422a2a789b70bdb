import EmojiArtKit
import EmojiArtLive
import EmojiArtStore
import EmojiArtStoreSQLite
import EmojiArtTestSupport
import Foundation
import GRDB
import Testing

/// The log as the truth, on every store: snapshots trail the newest entries by the same tail,
/// and a library opened afresh on the store has the undo history and the request ids back.
@Suite("The log tail on every store")
struct LogTailTests {
    enum Kind: String, CaseIterable, CustomTestStringConvertible {
        case sqlite, postgres
        var testDescription: String { rawValue }

        static var available: [Kind] { TestPostgres.url == nil ? [.sqlite] : allCases }

        func makeStore() async throws -> any DocumentStore {
            switch self {
            case .sqlite: Stores.inMemory().documents
            case .postgres: try await TestPostgres.freshStores().documents
            }
        }
    }

    func library(_ store: any DocumentStore) -> DocumentLibrary {
        var settings = DocumentLibrary.Settings()
        settings.retainedLog = 6
        settings.compactionBatch = 4
        return DocumentLibrary(store: store, settings: settings)
    }

    @Test(arguments: Kind.available)
    func aSnapshotKeepsTheTailAndAFreshLibraryHasTheHistoryBack(kind: Kind) async throws {
        let store = try await kind.makeStore()
        let before = library(store)
        let created = try await before.create(try EmojiArtDocument())
        for x in 0..<12 {
            _ = try await before.withDocument(created.id) {
                try await $0.perform(
                    [.addEmoji(text: "🐝", position: Point(x: x, y: 0), size: 20)], baseVersion: x, requestID: "r\(x)")
            }
        }
        await before.maintain()
        let stored = try #require(try await store.loadDocument(id: created.id))
        #expect(stored.snapshot.version == 6)
        #expect(stored.log.map(\.version) == Array(7...12))
        #expect(stored.log.last?.requestID == "r11")

        let after = library(store)
        let resent = try #require(
            try await after.withDocument(created.id) {
                try await $0.perform(
                    [.addEmoji(text: "🐝", position: Point(x: 11, y: 0), size: 20)], baseVersion: 11, requestID: "r11")
            })
        #expect(resent.version == 12)
        #expect(resent.document.emojis.count == 12)
        // Six steps back: every step in the tail undoes; the seventh is older than the tail.
        for step in 1...6 {
            let undone = try #require(try await after.withDocument(created.id) { try await $0.undo() })
            #expect(undone.document.emojis.count == 12 - step)
        }
        await #expect(throws: LiveDocumentError.nothingToUndo) {
            try await after.withDocument(created.id) { try await $0.undo() }
        }
        let exhausted = try #require(try await after.withDocument(created.id) { try await $0.state() })
        #expect(exhausted.version == 18)
        #expect(exhausted.undoActionName == nil)
        #expect(exhausted.redoActionName == "Add 🐝")
    }
}
