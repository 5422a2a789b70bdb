import EmojiArtKit
import EmojiArtLive
import EmojiArtStore
import Foundation
import Synchronization
import Testing

/// A store that counts transactions and can be told to fail, around an in-memory one.
final class InstrumentedStore: DocumentStore, PaletteStore, ImageStore {
    let base = InMemoryStore()
    let appendCount = Atomic<Int>(0)
    let failAppends = Atomic<Bool>(false)
    /// Extra milliseconds each append, load and palette save takes, to force interleavings.
    let appendDelay = Atomic<Int>(2)
    let loadDelay = Atomic<Int>(0)
    let saveDelay = Atomic<Int>(0)

    var kind: String { "instrumented" }
    func listDocuments() async throws -> [DocumentSummary] { try await base.listDocuments() }
    func createDocument(_ record: StoredDocument, owner: UUID) async throws {
        try await base.createDocument(record, owner: owner)
    }
    func loadDocument(id: UUID) async throws -> (snapshot: StoredDocument, log: [LogEntry])? {
        let result = try await base.loadDocument(id: id)
        try await Task.sleep(for: .milliseconds(loadDelay.load(ordering: .relaxed)))
        return result
    }
    func append(_ entries: [LogEntry], to id: UUID, summary: DocumentSummary) async throws {
        // Give other edits time to queue up behind this commit, as a real disk would.
        try await Task.sleep(for: .milliseconds(appendDelay.load(ordering: .relaxed)))
        if failAppends.load(ordering: .relaxed) { throw StoreError.corrupt("disk full (simulated)") }
        appendCount.add(1, ordering: .relaxed)
        try await base.append(entries, to: id, summary: summary)
    }
    func saveSnapshot(_ snapshot: StoredDocument) async throws { try await base.saveSnapshot(snapshot) }
    func deleteDocument(id: UUID) async throws -> Bool { try await base.deleteDocument(id: id) }
    func loadPalettes(owner: UUID) async throws -> [Palette]? { try await base.loadPalettes(owner: owner) }
    func saveImage(_ image: StoredImage) async throws { try await base.saveImage(image) }
    func saveImageSource(_ url: String, imageID: String) async throws {
        try await base.saveImageSource(url, imageID: imageID)
    }
    func imageID(forSource url: String) async throws -> String? { try await base.imageID(forSource: url) }
    func loadImage(id: String) async throws -> StoredImage? { try await base.loadImage(id: id) }
    func savePalettes(_ palettes: [Palette], owner: UUID) async throws {
        try await Task.sleep(for: .milliseconds(saveDelay.load(ordering: .relaxed)))
        try await base.savePalettes(palettes, owner: owner)
    }
}

/// A clock the test moves by hand.
final class ManualClock: Sendable {
    private let date = Mutex(Date(timeIntervalSince1970: 1_000_000))
    var now: @Sendable () -> Date { { self.date.withLock { $0 } } }
    func advance(by seconds: TimeInterval) { date.withLock { $0 += seconds } }
}

@Suite("Live documents: one writer, durable acknowledgements, compaction")
struct LiveDocumentTests {
    func makeLibrary(
        store: any DocumentStore = InstrumentedStore(), clock: ManualClock = ManualClock()
    ) -> DocumentLibrary {
        var settings = DocumentLibrary.Settings()
        settings.idleTimeout = 60
        return DocumentLibrary(store: store, settings: settings, now: clock.now)
    }

    func emoji(_ x: Int) -> Edit { .addEmoji(text: "😀", position: Point(x: x, y: 0), size: 40) }

    @Test func concurrentEditsAreAllDurableAndGroupCommitted() async throws {
        let store = InstrumentedStore()
        let library = makeLibrary(store: store)
        let created = try await library.create(try EmojiArtDocument(title: "Busy"))
        let document = try #require(try await library.document(created.id))
        try await withThrowingTaskGroup(of: Void.self) { group in
            for x in 0..<200 {
                group.addTask { _ = try await document.perform([emoji(x)], baseVersion: 0) }
            }
            try await group.waitForAll()
        }
        let state = try await document.state()
        #expect(state.version == 200)
        #expect(state.document.emojis.count == 200)
        let stored = try #require(try await store.loadCurrent(id: created.id))
        #expect(stored.document == state.document)
        #expect(stored.version == 200)
        let transactions = store.appendCount.load(ordering: .relaxed)
        #expect(transactions < 100, "200 edits took \(transactions) commits; group commit should batch them")
    }

    @Test func staleEditsRebaseWhenTheyStillApplyAndConflictWhenNot() async throws {
        let library = makeLibrary()
        let created = try await library.create(try EmojiArtDocument())
        let document = try #require(try await library.document(created.id))
        _ = try await document.perform([emoji(1), emoji(2)], baseVersion: 0)
        // Another window moves emoji 1 at version 1 while this one is at version 0: still applies.
        let moved = try await document.perform([.moveEmojis(ids: [1], offset: Point(x: 5, y: 5))], baseVersion: 0)
        #expect(moved.version == 2)
        _ = try await document.perform([.deleteEmojis(ids: [2])], baseVersion: 2)
        // A stale window moving the deleted emoji: conflict, nothing changes.
        let stale = await #expect(throws: LiveDocumentError.self) {
            try await document.perform([.moveEmojis(ids: [2], offset: Point(x: 1, y: 1))], baseVersion: 2)
        }
        guard case .conflict(let version, _)? = stale else {
            Issue.record("expected a conflict")
            return
        }
        #expect(version == 3)
        // The same edit from an up-to-date window is simply invalid.
        await #expect(throws: EmojiArtError.self) {
            try await document.perform([.moveEmojis(ids: [2], offset: Point(x: 1, y: 1))], baseVersion: 3)
        }
        // A base from the future is a conflict.
        await #expect(throws: LiveDocumentError.self) {
            try await document.perform([emoji(3)], baseVersion: 99)
        }
        #expect(try await document.state().version == 3)
    }

    @Test func undoAndRedoAreSharedAndDurable() async throws {
        let store = InstrumentedStore()
        let library = makeLibrary(store: store)
        let created = try await library.create(try EmojiArtDocument())
        let document = try #require(try await library.document(created.id))
        _ = try await document.perform([emoji(1)], baseVersion: 0)
        _ = try await document.perform([.moveEmojis(ids: [1], offset: Point(x: 10, y: 0))], baseVersion: 1)
        let undone = try await document.undo()
        #expect(undone.undoActionName == "Add 😀")
        #expect(undone.redoActionName == "Move")
        #expect(undone.version == 3)
        #expect(try await store.loadCurrent(id: created.id)?.document == undone.document)
        let redone = try await document.redo()
        #expect(redone.document.emojis.first?.position == Point(x: 11, y: 0))
        #expect(try await store.loadCurrent(id: created.id)?.document == redone.document)
        // Nothing to redo: the state comes back unchanged.
        #expect(try await document.redo().version == redone.version)
    }

    @Test func settledDocumentsAreCompactedAfterTheDelay() async throws {
        let store = InstrumentedStore()
        let clock = ManualClock()
        let library = makeLibrary(store: store, clock: clock)
        let created = try await library.create(try EmojiArtDocument())
        let document = try #require(try await library.document(created.id))
        for x in 0..<5 { _ = try await document.perform([emoji(x)], baseVersion: x) }
        await library.maintain()
        #expect(store.base.logLength(of: created.id) == 5, "not yet: the last change was just now")
        clock.advance(by: 6)
        await library.maintain()
        #expect(store.base.logLength(of: created.id) == 0)
        #expect(try await store.loadDocument(id: created.id)?.snapshot.version == 5)
    }

    @Test func idleDocumentsUnloadAndReopenFromTheStore() async throws {
        let clock = ManualClock()
        let library = makeLibrary(clock: clock)
        let created = try await library.create(try EmojiArtDocument())
        let state = try #require(
            try await library.withDocument(created.id) { try await $0.perform([emoji(7)], baseVersion: 0) })
        let first = try #require(try await library.document(created.id))
        clock.advance(by: 61)
        await library.maintain()  // compacts
        await library.maintain()  // unloads
        #expect(await library.openCount == 0)
        // A request still holding the old copy is retried on a fresh one.
        await #expect(throws: LiveDocumentError.unloaded) { try await first.perform([emoji(8)], baseVersion: 1) }
        let reopened = try #require(try await library.withDocument(created.id) { try await $0.state() })
        #expect(reopened.document == state.document)
        #expect(reopened.version == 1)
    }

    @Test func aFailedCommitIsNotAcknowledgedAndNotKept() async throws {
        let store = InstrumentedStore()
        let library = makeLibrary(store: store)
        let created = try await library.create(try EmojiArtDocument())
        _ = try await library.withDocument(created.id) { try await $0.perform([emoji(1)], baseVersion: 0) }
        store.failAppends.store(true, ordering: .relaxed)
        await #expect(throws: LiveDocumentError.self) {
            try await library.withDocument(created.id) { try await $0.perform([emoji(2)], baseVersion: 1) }
        }
        store.failAppends.store(false, ordering: .relaxed)
        let state = try #require(try await library.withDocument(created.id) { try await $0.state() })
        #expect(state.version == 1)
        #expect(state.document.emojis.count == 1)
    }

    @Test func deletedDocumentsAreGoneForEveryHolder() async throws {
        let library = makeLibrary()
        let created = try await library.create(try EmojiArtDocument())
        let document = try #require(try await library.document(created.id))
        #expect(try await library.delete(created.id))
        await #expect(throws: LiveDocumentError.deleted) { try await document.perform([emoji(1)], baseVersion: 0) }
        #expect(try await library.withDocument(created.id) { try await $0.state() } == nil)
        #expect(try await !library.delete(created.id))
    }

    @Test func duplicatesAreIndependentCopies() async throws {
        let library = makeLibrary()
        let created = try await library.create(try EmojiArtDocument(title: "Original"))
        _ = try await library.withDocument(created.id) { try await $0.perform([emoji(1)], baseVersion: 0) }
        let copy = try #require(try await library.duplicate(created.id, title: nil))
        #expect(copy.document.title == "Original copy")
        #expect(copy.document.emojis.count == 1)
        #expect(copy.undoActionName == nil)
        _ = try await library.withDocument(copy.id) { try await $0.perform([emoji(2)], baseVersion: 0) }
        #expect(try await library.withDocument(created.id) { try await $0.state().document.emojis.count } == 1)
    }

    @Test func readersOnlySeeDurableVersions() async throws {
        let store = InstrumentedStore()
        let library = makeLibrary(store: store)
        let created = try await library.create(try EmojiArtDocument())
        let document = try #require(try await library.document(created.id))
        store.appendDelay.store(200, ordering: .relaxed)
        store.failAppends.store(true, ordering: .relaxed)
        let edit = Task { try await document.perform([emoji(1)], baseVersion: 0) }
        try await Task.sleep(for: .milliseconds(50))
        // While the commit is in flight, readers see version 0 without the emoji.
        let during = try await document.state()
        #expect(during.version == 0)
        #expect(during.document.emojis.isEmpty)
        await #expect(throws: LiveDocumentError.self) { try await edit.value }
        // The failed edit was never visible, and the next one takes version 1 from the store.
        store.appendDelay.store(0, ordering: .relaxed)
        store.failAppends.store(false, ordering: .relaxed)
        let next = try #require(
            try await library.withDocument(created.id) { try await $0.perform([emoji(2)], baseVersion: 0) })
        #expect(next.version == 1)
        #expect(next.document.emojis.map(\.position.x) == [2])
    }

    @Test func aDeleteWinsOverALoadInFlight() async throws {
        let store = InstrumentedStore()
        let library = makeLibrary(store: store)
        let created = try await library.create(try EmojiArtDocument())
        // A second library has nothing open: its first request loads from the store, slowly.
        let fresh = makeLibrary(store: store)
        store.loadDelay.store(200, ordering: .relaxed)
        let read = Task { try await fresh.withDocument(created.id) { try await $0.state() } }
        try await Task.sleep(for: .milliseconds(50))
        #expect(try await fresh.delete(created.id))
        #expect(try await read.value == nil)
        #expect(try await fresh.withDocument(created.id) { try await $0.state() } == nil)
        #expect(await fresh.openCount == 0)
    }

    @Test func editsQueuedBehindADeleteAreToldItWasDeleted() async throws {
        let store = InstrumentedStore()
        let library = makeLibrary(store: store)
        let created = try await library.create(try EmojiArtDocument())
        let document = try #require(try await library.document(created.id))
        store.appendDelay.store(100, ordering: .relaxed)
        let edits = (0..<5).map { x in Task { try await document.perform([emoji(x)], baseVersion: 0) } }
        try await Task.sleep(for: .milliseconds(30))
        #expect(try await library.delete(created.id))
        for edit in edits.dropFirst() {
            await #expect(throws: LiveDocumentError.deleted) { try await edit.value }
        }
    }

    @Test func concurrentPaletteChangesAreAllKept() async throws {
        let store = InstrumentedStore()
        store.saveDelay.store(5, ordering: .relaxed)
        let palettes = PaletteLibrary(store: store)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<30 {
                group.addTask {
                    _ = try await palettes.update { try $0.insert(Palette(name: "P\(index)", emojis: "😀")) }
                }
            }
            try await group.waitForAll()
        }
        #expect(try await palettes.palettes().count == 39)
        #expect(try await store.loadPalettes(owner: LocalUser.id)?.count == 39)
        #expect(try await PaletteLibrary(store: store).palettes().count == 39)
    }

    @Test func paletteSubscribersHearEveryChangeAndChangesMadeToTheStoreElsewhere() async throws {
        let store = InMemoryStore()
        let palettes = PaletteLibrary(store: store)
        let (current, updates) = try await palettes.subscribe()
        #expect(current.palettes.count == 9)
        var iterator = updates.makeAsyncIterator()

        let added = try await palettes.update { try $0.insert(Palette(name: "Mine", emojis: "😀"), at: 1) }
        let first = try #require(await iterator.next())
        #expect(first.version > current.version && first.palettes[1] == added)

        // A change that changes nothing is not news.
        try await palettes.update { try $0.rename(id: added.id, to: "Mine") }
        // Another process (the CLI) changes the store; the next refresh tells every window.
        var stored = try #require(try await store.loadPalettes(owner: LocalUser.id))
        stored.removeLast()
        try await store.savePalettes(stored, owner: LocalUser.id)
        await palettes.refreshFromStore()
        let second = try #require(await iterator.next())
        #expect(second.version == first.version + 1 && second.palettes.count == 9)
        #expect(try await palettes.palettes() == stored)
        await palettes.refreshFromStore()  // unchanged: nothing new
        try await palettes.update { try $0.rename(id: added.id, to: "Mine 2") }
        #expect(try #require(await iterator.next()).palettes[1].name == "Mine 2")
    }

    @Test func palettesStartWithTheBuiltInsAndPersist() async throws {
        let store = InMemoryStore()
        let palettes = PaletteLibrary(store: store)
        #expect(try await palettes.palettes().map(\.name).first == "Vehicles")
        #expect(try await store.loadPalettes(owner: LocalUser.id)?.count == 9)
        try await palettes.update { try $0.rename(id: $0.palettes[0].id, to: "Cars") }
        #expect(try await PaletteLibrary(store: store).palettes().first?.name == "Cars")
        await #expect(throws: EmojiArtError.self) {
            try await palettes.update { list in
                for palette in list.palettes { try list.remove(id: palette.id) }
            }
        }
        #expect(try await palettes.palettes().count == 9, "a failed change leaves the palettes as they were")
    }
}
