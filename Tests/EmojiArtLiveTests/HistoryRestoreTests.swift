import EmojiArtKit
import EmojiArtStore
import Foundation
import Testing

@testable import EmojiArtLive

@Suite("Restoring a version through the live library")
struct HistoryRestoreTests {
    func add(_ x: Int) -> Edit { .addEmoji(text: "🐶", position: Point(x: x, y: 0), size: 40) }

    @Test func aRestoreIsOneUndoableChangeEveryWindowSees() async throws {
        let store = InstrumentedStore()
        let clock = ManualClock()
        var settings = DocumentLibrary.Settings()
        settings.checkpointInterval = 5
        let library = DocumentLibrary(store: store, settings: settings, now: clock.now)
        let created = try await library.create(try EmojiArtDocument(title: "Past"))
        let document = try #require(try await library.document(created.id))
        for x in 0..<12 { _ = try await document.perform([add(x)], baseVersion: x, author: LocalUser.id) }
        _ = try await document.perform([.retitle("Now")], baseVersion: 12)
        let atThree = try #require(try await library.history.document(id: created.id, at: 3))
        let before = try await document.state()
        let window = try await document.subscribe(since: before.version)
        var replica = before.document

        let restored = try #require(
            try await library.restore(created.id, to: 3, author: nil) { _ in "Restore Version of 14:02" })
        #expect(restored.version == before.version + 1)
        #expect(restored.document == atThree.document)
        #expect(restored.undoActionName == "Restore Version of 14:02")
        // The window's change turns its copy into version 3's document exactly.
        var events = window.events.makeAsyncIterator()
        guard case .change(let change)? = await events.next() else {
            Issue.record("no change")
            return
        }
        try change.patch.apply(to: &replica)
        #expect(replica == atThree.document)
        // History was not rewritten: version 13 is still the rename.
        #expect(try await library.history.document(id: created.id, at: 13)?.document == before.document)
        let undone = try await document.undo()
        #expect(undone.document == before.document)
        // Restoring what the document already is changes nothing.
        let same = try #require(try await library.restore(created.id, to: undone.version, author: nil) { _ in "x" })
        #expect(same.version == undone.version)
        await #expect(throws: HistoryError.versionUnavailable(99)) {
            try await library.restore(created.id, to: 99, author: nil) { _ in "x" }
        }
        // Checkpoints follow the document as the library maintains it.
        await library.maintain()
        #expect(try await store.checkpoint(of: created.id, atOrBefore: .max)?.version == 15)
        #expect(try await store.logEntries(of: created.id, in: 1...1).first?.author == LocalUser.id)
    }

    @Test func historyOutlivesUnloading() async throws {
        let store = InstrumentedStore()
        let clock = ManualClock()
        var settings = DocumentLibrary.Settings()
        settings.idleTimeout = 60
        settings.retainedLog = 2
        settings.compactionBatch = 1
        let library = DocumentLibrary(store: store, settings: settings, now: clock.now)
        let created = try await library.create(try EmojiArtDocument(title: "Past"))
        let document = try #require(try await library.document(created.id))
        for x in 0..<6 { _ = try await document.perform([add(x)], baseVersion: x) }
        await library.maintain()
        clock.advance(by: 120)
        await library.maintain()
        #expect(await library.openCount == 0)
        let restored = try #require(try await library.restore(created.id, to: 2, author: nil) { _ in "Restore" })
        #expect(restored.document.emojis.count == 2)
        #expect(restored.version == 7)
    }
}
