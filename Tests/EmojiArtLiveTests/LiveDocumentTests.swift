import EmojiArtKit
import EmojiArtStore
import EmojiArtStoreSQLite
import Foundation
import Synchronization
import Testing

@testable import EmojiArtLive

/// A test store around in-memory ones whose history is theirs.
protocol ForwardsHistory: DocumentStore {
    var base: Stores { get }
}

extension ForwardsHistory {
    func logEntries(of id: UUID, in range: ClosedRange<Int>) async throws -> [LogEntry] {
        try await base.documents.logEntries(of: id, in: range)
    }
    func recentLogEntries(of id: UUID, through version: Int, limit: Int) async throws -> [LogEntry] {
        try await base.documents.recentLogEntries(of: id, through: version, limit: limit)
    }
    func checkpoint(of id: UUID, atOrBefore version: Int) async throws -> StoredDocument? {
        try await base.documents.checkpoint(of: id, atOrBefore: version)
    }
    func ping() async throws { try await base.documents.ping() }
    func oldestCheckpointVersion(of id: UUID) async throws -> Int? {
        try await base.documents.oldestCheckpointVersion(of: id)
    }
    func saveCheckpoint(_ checkpoint: StoredDocument) async throws {
        try await base.documents.saveCheckpoint(checkpoint)
    }
    func dropHistory(of id: UUID, through version: Int, keeping: Set<Int>) async throws {
        try await base.documents.dropHistory(of: id, through: version, keeping: keeping)
    }
}

/// A store that counts transactions and can be told to fail, around an in-memory one.
final class InstrumentedStore: ForwardsHistory, PaletteStore, ImageStore {
    let base = Stores.inMemory()
    let appendCount = Atomic<Int>(0)
    let failAppends = Atomic<Bool>(false)
    /// Fails this many of the next transactions, whenever they come.
    let failNextAppends = Atomic<Int>(0)
    /// Extra milliseconds each append, load and palette save takes, to force interleavings.
    let appendDelay = Atomic<Int>(2)
    let loadDelay = Atomic<Int>(0)
    let saveDelay = Atomic<Int>(0)
    /// How many writes it takes at once (``DocumentStore/concurrentAppends``), and the most that
    /// were ever in flight together.
    let writers: Int
    let inFlight = Atomic<Int>(0)
    let mostInFlight = Atomic<Int>(0)

    init(writers: Int = 1) { self.writers = writers }

    var kind: String { "instrumented" }
    var concurrentAppends: Int { writers }
    func listDocuments() async throws -> [DocumentSummary] { try await base.documents.listDocuments() }
    func listDocuments(_ listing: DocumentListing) async throws -> DocumentListPage {
        try await base.documents.listDocuments(listing)
    }
    func createDocument(_ record: StoredDocument, owner: UUID) async throws {
        try await base.documents.createDocument(record, owner: owner)
    }
    func loadDocument(id: UUID) async throws -> (snapshot: StoredDocument, log: [LogEntry])? {
        let result = try await base.documents.loadDocument(id: id)
        try await Task.sleep(for: .milliseconds(loadDelay.load(ordering: .relaxed)))
        return result
    }
    /// One transaction, however many documents' appends it carries.
    func append(_ appends: [LogAppend]) async throws -> [Result<Void, any Error>] {
        let now = inFlight.add(1, ordering: .relaxed).newValue
        defer { inFlight.subtract(1, ordering: .relaxed) }
        _ = mostInFlight.max(now, ordering: .relaxed)
        // Give other edits time to queue up behind this commit, as a real disk would.
        try await Task.sleep(for: .milliseconds(appendDelay.load(ordering: .relaxed)))
        if failAppends.load(ordering: .relaxed) { throw StoreError.corrupt("disk full (simulated)") }
        if failNextAppends.wrappingSubtract(1, ordering: .relaxed).oldValue > 0 {
            throw StoreError.corrupt("disk full (simulated)")
        }
        appendCount.add(1, ordering: .relaxed)
        return try await base.documents.append(appends)
    }
    func saveSnapshot(_ snapshot: StoredDocument) async throws { try await base.documents.saveSnapshot(snapshot) }
    func deleteDocument(id: UUID) async throws -> Bool { try await base.documents.deleteDocument(id: id) }
    func loadPalettes(owner: UUID) async throws -> [Palette]? { try await base.palettes.loadPalettes(owner: owner) }
    func saveImage(_ image: StoredImage) async throws { try await base.images.saveImage(image) }
    func saveImageSource(_ url: String, imageID: String) async throws {
        try await base.images.saveImageSource(url, imageID: imageID)
    }
    func imageID(forSource url: String) async throws -> String? { try await base.images.imageID(forSource: url) }
    func loadImage(id: String) async throws -> StoredImage? { try await base.images.loadImage(id: id) }
    func recordImageUse(_ imageID: String, by use: ImageUse) async throws {
        try await base.images.recordImageUse(imageID, by: use)
    }
    func mayRead(imageID: String, _ reader: ImageReader) async throws -> Bool {
        try await base.images.mayRead(imageID: imageID, reader)
    }
    func savePalettes(_ palettes: [Palette], owner: UUID) async throws {
        try await Task.sleep(for: .milliseconds(saveDelay.load(ordering: .relaxed)))
        try await base.palettes.savePalettes(palettes, owner: owner)
    }
}

/// A store whose appends conflict on demand while its log never shows what they conflicted
/// with (a lagging replica), counting the reads.
final class LaggingStore: ForwardsHistory {
    let base = Stores.inMemory()
    let conflict = Atomic<Bool>(false)
    let reads = Atomic<Int>(0)

    var kind: String { "lagging" }
    func listDocuments() async throws -> [DocumentSummary] { try await base.documents.listDocuments() }
    func listDocuments(_ listing: DocumentListing) async throws -> DocumentListPage {
        try await base.documents.listDocuments(listing)
    }
    func createDocument(_ record: StoredDocument, owner: UUID) async throws {
        try await base.documents.createDocument(record, owner: owner)
    }
    func loadDocument(id: UUID) async throws -> (snapshot: StoredDocument, log: [LogEntry])? {
        try await base.documents.loadDocument(id: id)
    }
    func append(_ appends: [LogAppend]) async throws -> [Result<Void, any Error>] {
        if conflict.load(ordering: .relaxed) {
            return appends.map { .failure(StoreError.versionConflict(id: $0.id, expected: $0.entries[0].version - 1)) }
        }
        return try await base.documents.append(appends)
    }
    func logEntries(of id: UUID, after version: Int) async throws -> [LogEntry]? {
        reads.add(1, ordering: .relaxed)
        return []
    }
    func saveSnapshot(_ snapshot: StoredDocument) async throws { try await base.documents.saveSnapshot(snapshot) }
    func deleteDocument(id: UUID) async throws -> Bool { try await base.documents.deleteDocument(id: id) }
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

    @Test func differentDocumentsShareCommitsThroughTheOneQueue() async throws {
        let store = InstrumentedStore()
        store.appendDelay.store(20, ordering: .relaxed)
        let library = makeLibrary(store: store)
        var documents: [LiveDocument] = []
        for index in 0..<8 {
            let created = try await library.create(try EmojiArtDocument(title: "Doc \(index)"))
            documents.append(try #require(try await library.document(created.id)))
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for document in documents {
                group.addTask { for x in 0..<3 { _ = try await document.perform([emoji(x)], baseVersion: 0) } }
            }
            try await group.waitForAll()
        }
        for document in documents {
            #expect(try await store.loadCurrent(id: document.id)?.document.emojis.count == 3)
        }
        // 24 edits on 8 documents: each document has one batch in flight at a time, and the
        // queue writes many documents' batches in one transaction.
        let transactions = store.appendCount.load(ordering: .relaxed)
        let (writes, appends) = await (library.commits.writes, library.commits.appends)
        #expect(transactions == writes)
        #expect(appends > writes)
        #expect(transactions <= 12, "24 edits on 8 documents took \(transactions) transactions")
    }

    @Test func aStoreThatWritesSideBySideGetsThatManyWritesAndGathersTheRest() async throws {
        let store = InstrumentedStore(writers: 3)
        store.appendDelay.store(30, ordering: .relaxed)
        let library = makeLibrary(store: store)
        var documents: [LiveDocument] = []
        for index in 0..<12 {
            let created = try await library.create(try EmojiArtDocument(title: "Doc \(index)"))
            documents.append(try #require(try await library.document(created.id)))
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for document in documents {
                group.addTask { for x in 0..<2 { _ = try await document.perform([emoji(x)], baseVersion: 0) } }
            }
            try await group.waitForAll()
        }
        for document in documents {
            #expect(try await store.loadCurrent(id: document.id)?.document.emojis.count == 2)
        }
        // Writes went side by side, never more than three; the 24 edits, arriving together,
        // shared the writes that were free.
        #expect((2...3).contains(store.mostInFlight.load(ordering: .relaxed)))
        let (writes, appends) = await (library.commits.writes, library.commits.appends)
        #expect(appends > writes)
        #expect(writes <= 12, "24 edits on 12 documents took \(writes) writes")
    }

    @Test func aCancelledEditStillCommitsAndFailsNoOneElse() async throws {
        let store = InstrumentedStore()
        store.appendDelay.store(50, ordering: .relaxed)
        let library = makeLibrary(store: store)
        let first = try #require(try await library.document(try await library.create(try EmojiArtDocument()).id))
        let second = try #require(try await library.document(try await library.create(try EmojiArtDocument()).id))
        let cancelled = Task { try await first.perform([emoji(1)], baseVersion: 0) }
        let other = Task { try await second.perform([emoji(2)], baseVersion: 0) }
        try await Task.sleep(for: .milliseconds(10))
        cancelled.cancel()
        #expect(try await other.value.version == 1)
        // The cancelled caller's append was already on its way: it is durable, and the copy open.
        _ = try? await cancelled.value
        #expect(try await store.loadCurrent(id: first.id)?.version == 1)
        #expect(try await first.state().version == 1)
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
        // A lock the stale window hadn't seen refuses its edit as a lock does (422), not as a
        // conflict to reload for.
        _ = try await document.perform([.setLocked(ids: [1], locked: true)], baseVersion: 3)
        await #expect {
            try await document.perform([.moveEmojis(ids: [1], offset: Point(x: 1, y: 1))], baseVersion: 3)
        } throws: { error in
            (error as? EmojiArtError)?.code == .locked
        }
        #expect(try await document.state().version == 4)
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
        // Nothing to redo: refused, and nothing changes.
        await #expect(throws: LiveDocumentError.nothingToRedo) { try await document.redo() }
        #expect(try await document.state().version == redone.version)
    }

    @Test func longLogsAreFoldedIntoASnapshotThatTrailsTheNewestVersion() async throws {
        let store = InstrumentedStore()
        var settings = DocumentLibrary.Settings()
        settings.retainedLog = 4
        settings.compactionBatch = 3
        let library = DocumentLibrary(store: store, settings: settings)
        let created = try await library.create(try EmojiArtDocument())
        let document = try #require(try await library.document(created.id))
        for x in 0..<6 { _ = try await document.perform([emoji(x)], baseVersion: x) }
        await library.maintain()
        #expect(try await store.loadDocument(id: created.id)?.log.count == 6, "not yet: only 2 beyond the tail")
        _ = try await document.perform([emoji(6)], baseVersion: 6)
        await library.maintain()
        let stored = try #require(try await store.loadDocument(id: created.id))
        #expect(stored.snapshot.version == 3)
        #expect(stored.log.count == 4, "opening replays the tail")
        #expect(
            try await store.base.documents.logEntries(of: created.id, in: 0...100).count == 7,
            "the log before the snapshot stays, as history")
        #expect(try await store.loadCurrent(id: created.id)?.document == document.state().document)
        // On shutdown, everything beyond the tail is folded in.
        _ = try await document.perform([emoji(7)], baseVersion: 7)
        await library.compactAll()
        #expect(try await store.loadDocument(id: created.id)?.snapshot.version == 4)
    }

    // Finding 2 and the log as the truth: a fresh start has the undo history and the request
    // ids back, from the log.
    @Test func aCopyOpenedAfreshRecognisesResentRequestsAndUndoesWhatWasDoneBefore() async throws {
        let store = Stores.inMemory().documents
        let before = makeLibrary(store: store)
        let created = try await before.create(try EmojiArtDocument())
        _ = try await before.withDocument(created.id) {
            try await $0.perform([emoji(1)], baseVersion: 0, requestID: "w1")
        }
        let moved = try #require(
            try await before.withDocument(created.id) {
                try await $0.perform(
                    [.moveEmojis(ids: [1], offset: Point(x: 9, y: 0))], baseVersion: 1, requestID: "w2")
            })
        await before.compactAll()  // nothing beyond the tail: the log stays

        let after = makeLibrary(store: store)  // a restart, or another instance
        let resent = try #require(
            try await after.withDocument(created.id) {
                try await $0.perform(
                    [.moveEmojis(ids: [1], offset: Point(x: 9, y: 0))], baseVersion: 1, requestID: "w2")
            })
        #expect(resent.version == 2)
        #expect(resent.document == moved.document)
        #expect(resent.undoActionName == "Move")
        let undone = try #require(try await after.withDocument(created.id) { try await $0.undo(requestID: "w3") })
        #expect(undone.document.emojis.first?.position == Point(x: 1, y: 0))
        #expect(undone.redoActionName == "Move")
        #expect(undone.version == 3)
    }

    /// A browser back after a long time resends a request whose answer it never got: made on
    /// version 0, committed as version 1, and since folded into a snapshot a fresh copy opens
    /// from, so no copy remembers its id. The store's log still does: it is not applied again.
    /// (The same for a copy that forgot it behind 2,000 newer requests.)
    @Test func aRequestResentFromBeforeWhatACopyRemembersIsFoundInTheLog() async throws {
        let store = Stores.inMemory().documents
        let before = makeLibrary(store: store)
        let created = try await before.create(try EmojiArtDocument())
        _ = try await before.withDocument(created.id) {
            try await $0.perform([emoji(1)], baseVersion: 0, requestID: "long-ago")
        }
        for version in 1...4 {
            _ = try await before.withDocument(created.id) {
                try await $0.perform([emoji(version + 1)], baseVersion: version, requestID: "later-\(version)")
            }
        }
        let current = try #require(try await store.loadCurrent(id: created.id))
        try await store.saveSnapshot(current)  // version 5: the log before it is history only

        let after = makeLibrary(store: store)  // a restart, or another instance
        let resent = try #require(
            try await after.withDocument(created.id) {
                try await $0.perform([emoji(1)], baseVersion: 0, requestID: "long-ago")
            })
        #expect(resent.version == 5)
        #expect(resent.document.emojis.count == 5)
        // A request never made before, on the same old version, is applied.
        let new = try #require(
            try await after.withDocument(created.id) {
                try await $0.perform([emoji(9)], baseVersion: 0, requestID: "never-seen")
            })
        #expect(new.version == 6)
    }

    /// A keyed request id: `claim`'s, with a fingerprint of `digit`s.
    func keyed(_ claim: String, _ digit: Character) -> String {
        RequestKey.requestID(claim: claim, fingerprint: String(repeating: digit, count: RequestKey.fingerprintLength))
    }

    /// Two servers sharing the store, each given a different request under one key at once:
    /// whichever commits first takes the key, and the other's — staged, then rebased onto the
    /// first — is refused. A keyed request that changed nothing takes no key.
    @Test func aKeyTakenOnAnotherServerMeanwhileRefusesTheRequestStagedHere() async throws {
        let store = InstrumentedStore()
        let here = makeLibrary(store: store)
        let there = makeLibrary(store: store)
        let created = try await here.create(try EmojiArtDocument())
        let onHere = try #require(try await here.document(created.id))
        let onThere = try #require(try await there.document(created.id))
        store.appendDelay.store(150, ordering: .relaxed)
        let a = Task { try await onHere.perform([emoji(1)], baseVersion: 0, requestID: keyed("u edits k", "a")) }
        try await Task.sleep(for: .milliseconds(30))
        let b = Task { try await onThere.perform([emoji(2)], baseVersion: 0, requestID: keyed("u edits k", "b")) }
        let outcomes = [await a.result, await b.result]
        #expect(outcomes.filter { (try? $0.get()) != nil }.count == 1)
        #expect(
            outcomes.contains {
                if case .failure(let error) = $0 { (error as? LiveDocumentError) == .keyReused } else { false }
            })
        store.appendDelay.store(0, ordering: .relaxed)
        let state = try await onThere.state(atLeast: 1)
        #expect(state.version == 1)
        #expect(state.document.emojis.count == 1)
        // A keyed request that changed nothing took no key, here or there.
        #expect(try await onHere.perform([], baseVersion: 1, requestID: keyed("u edits n", "0")).version == 1)
        #expect(try await onHere.perform([emoji(3)], baseVersion: 1, requestID: keyed("u edits n", "1")).version == 2)
    }

    /// A keyed request (a REST `Idempotency-Key`, ``RequestKey``): sent again it is recognised,
    /// whatever its base; another request under the same key is refused and changes nothing —
    /// on the copy that took the key, and on a fresh copy that only the store's log can tell,
    /// the key taken at a version before its snapshot and with a current base (as a rename has).
    @Test func aKeyTakenByOneRequestRefusesAnotherOnEveryCopy() async throws {
        let store = Stores.inMemory().documents
        let before = makeLibrary(store: store)
        let created = try await before.create(try EmojiArtDocument())
        let first = keyed("user edits k", "a")
        let other = keyed("user edits k", "b")
        let document = try #require(try await before.document(created.id))
        _ = try await document.perform([emoji(1)], baseVersion: 0, requestID: first)
        #expect(try await document.perform([emoji(1)], baseVersion: 0, requestID: first).version == 1)
        await #expect(throws: LiveDocumentError.keyReused) {
            try await document.perform([emoji(2)], baseVersion: 1, requestID: other)
        }
        // Another claim (another sender, route or key) is free; a longer key isn't the same key.
        for claim in ["user edits k2", "user rename k", "other edits k"] {
            let id = keyed(claim, "b")
            let version = try await document.state().version
            #expect(
                try await document.perform([emoji(version + 5)], baseVersion: version, requestID: id).version
                    == version + 1)
        }
        let current = try #require(try await store.loadCurrent(id: created.id))
        try await store.saveSnapshot(current)  // version 4: the key's change is history only

        let after = makeLibrary(store: store)
        let fresh = try #require(try await after.document(created.id))
        await #expect(throws: LiveDocumentError.keyReused) {
            try await fresh.perform([emoji(2)], baseVersion: 4, requestID: other)
        }
        #expect(try await fresh.perform([emoji(1)], baseVersion: 4, requestID: first).version == 4)
        #expect(try await fresh.state().document.emojis.count == 4)
    }

    /// Two requests under one key at once: the second, arriving while the first is being
    /// committed (so the log doesn't have it yet), is refused.
    @Test func aKeyBeingCommittedIsTakenAlready() async throws {
        let store = InstrumentedStore()
        let library = makeLibrary(store: store)
        let created = try await library.create(try EmojiArtDocument())
        let document = try #require(try await library.document(created.id))
        store.appendDelay.store(200, ordering: .relaxed)
        let first = Task {
            try await document.perform(
                [emoji(1)], baseVersion: 0, requestID: keyed("u edits k", "a"))
        }
        try await Task.sleep(for: .milliseconds(50))
        await #expect(throws: LiveDocumentError.keyReused) {
            try await document.perform(
                [emoji(2)], baseVersion: 0, requestID: keyed("u edits k", "b"))
        }
        #expect(try await first.value.version == 1)
        #expect(try await document.state().document.emojis.count == 1)
    }

    /// A client's base version is anything it sends: the largest integer is a conflict, not an
    /// overflow in working out whether the request may be an old one.
    @Test func aBaseVersionAtTheLargestIntegerIsAConflict() async throws {
        let library = makeLibrary(store: Stores.inMemory().documents)
        let created = try await library.create(try EmojiArtDocument())
        let document = try #require(try await library.document(created.id))
        await #expect(throws: LiveDocumentError.self) {
            try await document.perform([emoji(1)], baseVersion: Int.max, requestID: "far")
        }
        #expect(try await document.state().version == 0)
    }

    /// A copy open all along forgets request ids behind the newest 2,000 (twice that before it
    /// prunes): a request resent from before them is looked for in the log, and not applied again.
    @Test func aRequestForgottenBehindNewerOnesIsFoundInTheLog() async throws {
        let library = makeLibrary(store: Stores.inMemory().documents)
        let created = try await library.create(try EmojiArtDocument())
        let document = try #require(try await library.document(created.id))
        _ = try await document.perform([emoji(1)], baseVersion: 0, requestID: "first")
        let newer = DocumentReplica.rememberedRequests * 2 + 1
        for version in 1...newer {
            _ = try await document.perform(
                [.moveEmojis(ids: [1], offset: Point(x: 1, y: 0))], baseVersion: version, requestID: "r\(version)")
        }
        let resent = try await document.perform([emoji(1)], baseVersion: 0, requestID: "first")
        #expect(resent.version == newer + 1)
        #expect(resent.document.emojis.count == 1)
    }

    /// A document open here at version 0 while another server sharing the store wrote version
    /// 1 unheard of, with slow appends: this copy's next commit conflicts and rebases.
    func copyBehindAnotherServer() async throws -> (DocumentLibrary, LiveDocumentState, LiveDocument) {
        let store = InstrumentedStore()
        let here = makeLibrary(store: store)
        let there = makeLibrary(store: store)
        let created = try await here.create(try EmojiArtDocument())
        let document = try #require(try await here.document(created.id))
        _ = try await there.withDocument(created.id) { try await $0.perform([emoji(1)], baseVersion: 0) }
        store.appendDelay.store(100, ordering: .relaxed)
        return (here, created, document)
    }

    // Finding 5: a client that saw a newer version (through another server) while this copy
    // is committing is caught up, not told of a false conflict.
    @Test func aNewerBaseWhileCommittingCatchesUp() async throws {
        let (_, _, document) = try await copyBehindAnotherServer()
        // This copy's own edit conflicts and rebases while the next request, based on version
        // 1 (seen on the other server), arrives.
        let own = Task { try await document.perform([emoji(2)], baseVersion: 0) }
        try await Task.sleep(for: .milliseconds(20))
        let newer = try await document.perform([.moveEmojis(ids: [1], offset: Point(x: 1, y: 0))], baseVersion: 1)
        _ = try await own.value
        #expect(newer.version == 3)
        #expect(try await document.state().document.emojis.count == 2)
    }

    // A read for a version committed through another server, before its notice arrived here
    // (a client reading through another instance what it was just told is done): the copy
    // reads the store rather than answer with an older version. A plain read doesn't.
    @Test func aReadForANewerVersionCatchesUpFirst() async throws {
        let (_, _, document) = try await copyBehindAnotherServer()
        #expect(try await document.state().version == 0)
        let read = try await document.state(atLeast: 1)
        #expect(read.version == 1)
        #expect(read.document.emojis.count == 1)
        // A version nobody has made yet: the newest there is.
        #expect(try await document.state(atLeast: 5).version == 1)
    }

    // A read for a version no one has made, while this copy's writer is busy: answered with the
    // newest there is once the wait runs out, not held until the writer idles; the writes go on.
    @Test func aReadForAVersionNobodyMadeWaitsForABusyWriterOnlySoLong() async throws {
        let store = InstrumentedStore()
        let library = makeLibrary(store: store)
        let created = try await library.create(try EmojiArtDocument())
        let document = try #require(try await library.document(created.id))
        store.appendDelay.store(100, ordering: .relaxed)
        let writing = Task {
            // About five seconds of commits back to back, each staged while the last is written.
            var version = 0
            var pending: Task<LiveDocumentState, any Error>?
            for x in 1...50 {
                let next = Task { [version] in try await document.perform([self.emoji(x)], baseVersion: version) }
                if let pending { version = try await pending.value.version }
                pending = next
            }
            return try await pending?.value.version
        }
        try await Task.sleep(for: .milliseconds(150))
        let read = try await document.state(atLeast: 1_000_000)
        // Answered while the writes went on (held until the writer idled, it would have all 50).
        #expect(read.version < 50)
        #expect(try await writing.value == 50)
    }

    // Finding 5: a conflict found after the copy was closed says why it closed.
    @Test func aConflictOnACopyDeletedMeanwhileSaysDeleted() async throws {
        let (here, created, document) = try await copyBehindAnotherServer()
        let edit = Task { try await document.perform([emoji(2)], baseVersion: 0) }
        try await Task.sleep(for: .milliseconds(20))
        await here.storeChanged(.deleted(created.id))
        await #expect(throws: LiveDocumentError.deleted) { try await edit.value }
    }

    // Another server's change announced while this one is loading the document (after the
    // load read the store): the copy catches up once it is open, rather than staying behind it
    // until the next change.
    @Test func aChangeAnnouncedWhileLoadingIsCaughtUpOnceOpen() async throws {
        let store = InstrumentedStore()
        let library = makeLibrary(store: store)
        // Made by another server: not open here.
        let created = StoredDocument(
            id: UUID(), document: try EmojiArtDocument(title: "Elsewhere"), version: 0, createdAt: Date(),
            updatedAt: Date())
        try await store.base.documents.createDocument(created, owner: LocalUser.id)
        store.loadDelay.store(300, ordering: .relaxed)
        let opening = Task { try await library.document(created.id) }
        try await Task.sleep(for: .milliseconds(100))  // the load has read the store
        let summary = DocumentSummary(
            id: created.id, title: "Elsewhere", emojiCount: 1, version: 1, createdAt: Date(), updatedAt: Date())
        try await store.base.documents.append(
            [LogEntry(version: 1, edits: [emoji(7)], date: Date())], to: created.id, summary: summary)
        await library.storeChanged(.appended(created.id, version: 1))  // announced by another server
        let document = try #require(try await opening.value)
        let state = try await document.state()
        #expect(state.version == 1)
        #expect(state.document.emojis.count == 1)
    }

    // A copy closed while its writer's append is in flight: the append still lands (it was
    // sent), and every caller still waiting hears that the document was deleted — none hangs.
    @Test func callersWaitingWhenTheCopyClosesMidWriteHearWhy() async throws {
        let store = InstrumentedStore()
        let library = makeLibrary(store: store)
        let created = try await library.create(try EmojiArtDocument())
        let document = try #require(try await library.document(created.id))
        store.appendDelay.store(400, ordering: .relaxed)
        let writer = Task { try await document.perform([emoji(1)], baseVersion: 0) }
        try await Task.sleep(for: .milliseconds(50))
        let waiting = (2..<5).map { x in Task { try await document.perform([emoji(x)], baseVersion: 0) } }
        try await Task.sleep(for: .milliseconds(50))
        await library.storeChanged(.deleted(created.id))  // announced by another server
        // Each answers within a few seconds (a hang is the bug), the writer's with its commit.
        let outcomes = try await withThrowingTaskGroup(of: [String]?.self) { group in
            group.addTask {
                var outcomes = [(try? await writer.value)?.version == 1 ? "committed" : "lost"]
                for edit in waiting {
                    do {
                        _ = try await edit.value
                        outcomes.append("committed")
                    } catch {
                        outcomes.append("\(error)")
                    }
                }
                return outcomes
            }
            group.addTask {
                try await Task.sleep(for: .seconds(10))
                return nil
            }
            let first = try await group.next() ?? nil
            group.cancelAll()
            return first
        }
        let answered = try #require(outcomes, "a caller never got an answer")
        #expect(answered.first == "committed")
        #expect(answered.dropFirst().allSatisfy { $0 == "committed" || $0 == "\(LiveDocumentError.deleted)" })
        #expect(answered.contains("\(LiveDocumentError.deleted)"))
    }

    // A failed write fails only the operations it carried: those staged behind it are retried
    // on a fresh copy and kept.
    @Test func aFailedWriteFailsOnlyWhatItCarried() async throws {
        let store = InstrumentedStore()
        let library = makeLibrary(store: store)
        let created = try await library.create(try EmojiArtDocument())
        store.appendDelay.store(100, ordering: .relaxed)
        store.failNextAppends.store(1, ordering: .relaxed)
        let carried = Task {
            try await library.withDocument(created.id) { try await $0.perform([emoji(1)], baseVersion: 0) }
        }
        try await Task.sleep(for: .milliseconds(20))
        let behind = Task {
            try await library.withDocument(created.id) { try await $0.perform([emoji(2)], baseVersion: 0) }
        }
        await #expect(throws: LiveDocumentError.self) { try await carried.value }
        let kept = try #require(try await behind.value)
        #expect(kept.version == 1)
        #expect(kept.document.emojis.map(\.position.x) == [2])
    }

    // Finding 5: a conflict whose read finds nothing new is retried after growing pauses, and
    // then given up (the library opens a fresh copy), rather than spinning.
    @Test func aConflictThatFindsNothingNewBacksOffThenGivesUp() async throws {
        let store = LaggingStore()
        let library = makeLibrary(store: store)
        let created = try await library.create(try EmojiArtDocument())
        let document = try #require(try await library.document(created.id))
        store.conflict.store(true, ordering: .relaxed)
        let start = ContinuousClock.now
        await #expect(throws: LiveDocumentError.unloaded) { try await document.perform([emoji(1)], baseVersion: 0) }
        #expect(ContinuousClock.now - start > .milliseconds(200))
        #expect(store.reads.load(ordering: .relaxed) == LiveDocument.emptyReadLimit + 1)
    }

    // Finding 4: a rebase onto another server's background starts fetching it.
    @Test func aRebaseRefreshesTheBackground() async throws {
        let store = InstrumentedStore()
        let images = BackgroundImages(store: store.base.images) { _ in throw BackgroundImageError(reason: "offline") }
        let here = DocumentLibrary(store: store, images: images)
        let there = makeLibrary(store: store)
        let created = try await here.create(try EmojiArtDocument())
        let document = try #require(try await here.document(created.id))
        _ = try await there.withDocument(created.id) {
            try await $0.perform([.setBackground(.url(URL(string: "http://127.0.0.1:9/a.png")!))], baseVersion: 0)
        }
        _ = try await document.perform([emoji(1)], baseVersion: 0)  // conflicts, rebases onto it
        var state = try await document.state().backgroundState
        for _ in 0..<100 where state == .none || state == .fetching(url: URL(string: "http://127.0.0.1:9/a.png")) {
            try await Task.sleep(for: .milliseconds(10))
            state = try await document.state().backgroundState
        }
        guard case .failed(let url?, _) = state else {
            Issue.record("expected the other server's background to be fetched, got \(state)")
            return
        }
        #expect(url.absoluteString == "http://127.0.0.1:9/a.png")
    }

    @Test func idleDocumentsUnloadAndReopenFromTheStore() async throws {
        let clock = ManualClock()
        let library = makeLibrary(clock: clock)
        let created = try await library.create(try EmojiArtDocument())
        let state = try #require(
            try await library.withDocument(created.id) { try await $0.perform([emoji(7)], baseVersion: 0) })
        let first = try #require(try await library.document(created.id))
        clock.advance(by: 61)
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
        let store = Stores.inMemory().palettes
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

    /// A live connection follows with a function, no stream: the list now, then each change in
    /// order, until it stops following.
    @Test func paletteFollowersHearTheListNowThenEveryChangeUntilTheyStop() async throws {
        let palettes = PaletteLibrary(store: Stores.inMemory().palettes)
        let heard = Mutex<[PaletteSnapshot]>([])
        let id = try await palettes.follow { snapshot in
            heard.withLock { $0.append(snapshot) }
            return true
        }
        #expect(heard.withLock { $0.map(\.palettes.count) } == [9])
        #expect(await palettes.subscriberCount == 1)
        try await palettes.update { try $0.insert(Palette(name: "Mine", emojis: "😀"), at: 0) }
        try await palettes.update { try $0.insert(Palette(name: "Yours", emojis: "🦊"), at: 0) }
        let versions = heard.withLock { $0.map(\.version) }
        #expect(versions.count == 3 && versions == versions.sorted() && Set(versions).count == 3)
        #expect(heard.withLock { $0.last?.palettes.first?.name } == "Yours")
        palettes.unfollow(id)
        #expect(await palettes.subscriberCount == 0)
        try await palettes.update { try $0.insert(Palette(name: "Late", emojis: "🐢"), at: 0) }
        #expect(heard.withLock { $0.count } == 3)
    }

    /// Another process's palettes, committed just after this server's save and announced while
    /// that save is still returning, are taken once the save ends (not skipped for good).
    @Test func aChangeHeardWhileSavingIsTakenAfterTheSave() async throws {
        final class CommandLineAfterSave: PaletteStore {
            let base = Stores.inMemory().palettes
            let library = Mutex<PaletteLibrary?>(nil)
            let theirs = Mutex<[Palette]?>(nil)
            func loadPalettes(owner: UUID) async throws -> [Palette]? { try await base.loadPalettes(owner: owner) }
            func savePalettes(_ palettes: [Palette], owner: UUID) async throws {
                try await base.savePalettes(palettes, owner: owner)
                if let theirs = theirs.withLock({ value in
                    defer { value = nil }
                    return value
                }) {
                    try await base.savePalettes(theirs, owner: owner)
                    await library.withLock { $0 }?.refreshFromStore()
                }
            }
        }
        let store = CommandLineAfterSave()
        let palettes = PaletteLibrary(store: store)
        store.library.withLock { $0 = palettes }
        var theirs = try await palettes.palettes()
        theirs[0].name = "Renamed by the command line"
        store.theirs.withLock { $0 = theirs }
        try await palettes.update { try $0.rename(id: $0.palettes[1].id, to: "Renamed here") }
        #expect(try await palettes.palettes() == theirs)
    }

    @Test func palettesStartWithTheBuiltInsAndPersist() async throws {
        let store = Stores.inMemory().palettes
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
