import EmojiArtKit
import EmojiArtStore
import EmojiArtStoreSQLite
import EmojiArtTestSupport
import Foundation
import GRDB
import Testing

/// The contract every ``DocumentStore`` keeps, run against each implementation.
@Suite("Document stores keep the contract")
struct DocumentStoreContractTests {
    func record(title: String = "Doc", at date: Date = Date(timeIntervalSince1970: 1_000)) throws -> StoredDocument {
        StoredDocument(
            id: UUID(), document: try EmojiArtDocument(title: title), version: 0, createdAt: date, updatedAt: date)
    }

    func summary(_ record: StoredDocument, version: Int, emojiCount: Int, at seconds: Double) -> DocumentSummary {
        DocumentSummary(
            id: record.id, title: record.document.title, emojiCount: emojiCount, version: version,
            createdAt: record.createdAt, updatedAt: Date(timeIntervalSince1970: seconds))
    }

    /// Many documents appending at once (the SQLite store writes them in shared transactions):
    /// every append lands, and a conflicting one fails alone.
    @Test(arguments: StoreKind.available)
    func concurrentAppendsToManyDocumentsEachLandOrFailAlone(kind: StoreKind) async throws {
        let store = try await kind.makeStore()
        var records: [StoredDocument] = []
        for index in 0..<12 {
            let stored = try record(title: "Doc \(index)")
            try await store.createDocument(stored, owner: LocalUser.id)
            records.append(stored)
        }
        let add = Edit.addEmoji(text: "🚚", position: Point(x: 0, y: 0), size: 40)
        let results = await withTaskGroup(of: (Int, Bool).self) { group in
            for (index, stored) in records.enumerated() {
                group.addTask {
                    var succeeded = true
                    for version in 1...20 {
                        // Document 5 claims a version it is not at, once: only that append fails.
                        let claimed = index == 5 && version == 10 ? 12 : version
                        do {
                            try await store.append(
                                [LogEntry(version: claimed, edits: [add], date: Date())], to: stored.id,
                                summary: summary(stored, version: claimed, emojiCount: version, at: 9_000))
                        } catch {
                            succeeded = false
                            break
                        }
                    }
                    return (index, succeeded)
                }
            }
            return await group.reduce(into: [:]) { $0[$1.0] = $1.1 }
        }
        for (index, stored) in records.enumerated() {
            let current = try #require(try await store.loadCurrent(id: stored.id))
            #expect(results[index] == (index != 5))
            #expect(current.version == (index == 5 ? 9 : 20))
            #expect(current.document.emojis.count == current.version)
        }
    }

    @Test(arguments: StoreKind.available)
    func createLoadAndList(kind: StoreKind) async throws {
        let store = try await kind.makeStore()
        let first = try record(title: "First", at: Date(timeIntervalSince1970: 1_000))
        let second = try record(title: "Second 🎉", at: Date(timeIntervalSince1970: 2_000))
        try await store.createDocument(first, owner: LocalUser.id)
        try await store.createDocument(second, owner: LocalUser.id)
        #expect(try await store.listDocuments().map(\.title) == ["Second 🎉", "First"])
        let loaded = try #require(try await store.loadDocument(id: first.id))
        #expect(loaded.snapshot == first)
        #expect(loaded.log.isEmpty)
        #expect(try await store.loadDocument(id: UUID()) == nil)
    }

    @Test(arguments: StoreKind.available)
    func appendedEntriesReplayInOrder(kind: StoreKind) async throws {
        let store = try await kind.makeStore()
        let stored = try record()
        try await store.createDocument(stored, owner: LocalUser.id)
        let date = Date(timeIntervalSince1970: 5_000)
        let entries = [
            LogEntry(version: 1, edits: [.addEmoji(text: "🚚", position: Point(x: 1, y: 2), size: 40)], date: date),
            LogEntry(version: 2, edits: [.moveEmojis(ids: [1], offset: Point(x: 10, y: 0))], date: date),
        ]
        try await store.append(entries, to: stored.id, summary: summary(stored, version: 2, emojiCount: 1, at: 5_000))
        try await store.append(
            [
                LogEntry(
                    version: 3,
                    edits: [
                        .retitle("Renamed"),
                        .setBackground(
                            .image(data: Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]), mimeType: "image/png")),
                    ], date: date)
            ],
            to: stored.id, summary: summary(stored, version: 3, emojiCount: 1, at: 6_000))
        let current = try #require(try await store.loadCurrent(id: stored.id))
        #expect(current.version == 3)
        #expect(current.document.title == "Renamed")
        #expect(Array(current.document.emojis) == [Emoji(id: 1, text: "🚚", position: Point(x: 11, y: 2), size: 40)])
        #expect(try await store.listDocuments().first?.version == 3)
        #expect(try await store.listDocuments().first?.emojiCount == 1)
    }

    /// Drawing order and turns (issue #18) and locks (issue #37) survive the log and a snapshot
    /// on every store.
    @Test(arguments: StoreKind.available)
    func reordersAndTurnsReplayFromTheLogAndTheSnapshot(kind: StoreKind) async throws {
        let store = try await kind.makeStore()
        let stored = try record()
        try await store.createDocument(stored, owner: LocalUser.id)
        let date = Date(timeIntervalSince1970: 5_000)
        let add = (0..<4).map { Edit.addEmoji(text: "🚚", position: Point(x: $0, y: 0), size: 40) }
        let entries = [
            LogEntry(version: 1, edits: add, date: date),
            LogEntry(
                version: 2, edits: [.reorder(ids: [1, 2], to: .front), .rotate(ids: [3], degrees: -90)], date: date),
            LogEntry(version: 3, edits: [.setEmojiOrder([EmojiIndex(id: 4, index: 3)])], date: date),
        ]
        try await store.append(entries, to: stored.id, summary: summary(stored, version: 3, emojiCount: 4, at: 5_000))
        // Locks (issue #37) too.
        try await store.append(
            [LogEntry(version: 4, edits: [.setLocked(ids: [1, 4], locked: true)], date: date)], to: stored.id,
            summary: summary(stored, version: 4, emojiCount: 4, at: 5_000))
        let current = try #require(try await store.loadCurrent(id: stored.id))
        #expect(current.document.emojis.ids == [3, 1, 2, 4])
        #expect(current.document.emojis.map(\.rotation) == [270, 0, 0, 0])
        #expect(current.document.emojis.map(\.locked) == [false, true, false, true])
        try await store.saveSnapshot(current)
        let reloaded = try #require(try await store.loadDocument(id: stored.id))
        #expect(reloaded.snapshot.document == current.document)
        #expect(reloaded.log.isEmpty)
    }

    @Test(arguments: StoreKind.available)
    func aStaleAppendIsAConflictAndChangesNothing(kind: StoreKind) async throws {
        let store = try await kind.makeStore()
        let stored = try record()
        try await store.createDocument(stored, owner: LocalUser.id)
        let entry = LogEntry(version: 1, edits: [.retitle("A")], date: Date())
        try await store.append([entry], to: stored.id, summary: summary(stored, version: 1, emojiCount: 0, at: 1))
        let error = await #expect(throws: StoreError.self) {
            try await store.append(
                [LogEntry(version: 1, edits: [.retitle("B")], date: Date())], to: stored.id,
                summary: summary(stored, version: 1, emojiCount: 0, at: 2))
        }
        #expect(error == .versionConflict(id: stored.id, expected: 0))
        #expect(try await store.loadCurrent(id: stored.id)?.document.title == "A")
        let missing = UUID()
        let notFound = await #expect(throws: StoreError.self) {
            try await store.append([entry], to: missing, summary: summary(stored, version: 1, emojiCount: 0, at: 2))
        }
        #expect(notFound == .notFound(missing))
    }

    @Test(arguments: StoreKind.available)
    func severalDocumentsAppendTogetherAndFailAlone(kind: StoreKind) async throws {
        let store = try await kind.makeStore()
        let first = try record()
        let second = try record()
        try await store.createDocument(first, owner: LocalUser.id)
        try await store.createDocument(second, owner: LocalUser.id)
        let missing = UUID()
        let results = try await store.append([
            LogAppend(
                id: first.id, entries: [LogEntry(version: 1, edits: [.retitle("One")], date: Date())],
                summary: summary(first, version: 1, emojiCount: 0, at: 1)),
            // Stale: the second document is at version 0.
            LogAppend(
                id: second.id, entries: [LogEntry(version: 2, edits: [.retitle("Never")], date: Date())],
                summary: summary(second, version: 2, emojiCount: 0, at: 1)),
            LogAppend(
                id: missing, entries: [LogEntry(version: 1, edits: [.retitle("Nobody")], date: Date())],
                summary: summary(first, version: 1, emojiCount: 0, at: 1)),
            LogAppend(
                id: second.id, entries: [LogEntry(version: 1, edits: [.retitle("Two")], date: Date())],
                summary: summary(second, version: 1, emojiCount: 0, at: 2)),
        ])
        #expect(results.count == 4)
        #expect(throws: Never.self) { try results[0].get() }
        #expect(throws: StoreError.versionConflict(id: second.id, expected: 1)) { try results[1].get() }
        #expect(throws: StoreError.notFound(missing)) { try results[2].get() }
        #expect(throws: Never.self) { try results[3].get() }
        #expect(try await store.loadCurrent(id: first.id)?.document.title == "One")
        #expect(try await store.loadCurrent(id: second.id)?.document.title == "Two")
        #expect(try await store.loadCurrent(id: second.id)?.version == 1)
    }

    /// An append the database itself refuses (two log rows of one version break the log's key)
    /// fails alone, and changes nothing of its document, however it was written with the others.
    @Test(arguments: StoreKind.available)
    func anAppendTheDatabaseRefusesFailsAlone(kind: StoreKind) async throws {
        let store = try await kind.makeStore()
        let documents = try (0..<4).map { _ in try record() }
        for document in documents { try await store.createDocument(document, owner: LocalUser.id) }
        let broken = documents[2]
        let results = try await store.append(
            documents.map { document in
                let versions = document.id == broken.id ? [1, 1] : [1]
                return LogAppend(
                    id: document.id,
                    entries: versions.map { LogEntry(version: $0, edits: [.retitle("Moved")], date: Date()) },
                    summary: summary(document, version: 1, emojiCount: 0, at: 1))
            })
        #expect(results.count == 4)
        for (document, result) in zip(documents, results) {
            let stored = try await store.loadCurrent(id: document.id)
            if document.id == broken.id {
                #expect(throws: (any Error).self) { try result.get() }
                #expect(stored?.version == 0)
                #expect(stored?.document.title == document.document.title)
            } else {
                #expect(throws: Never.self) { try result.get() }
                #expect(stored?.version == 1)
                #expect(stored?.document.title == "Moved")
            }
        }
    }

    /// One batch with an append too long for one statement (PostgreSQL writes it the old way,
    /// alone) among short ones (written together): every one lands, with its log, in its place.
    @Test(arguments: StoreKind.available)
    func aBatchWithALongAppendAmongShortOnesWritesThemAll(kind: StoreKind) async throws {
        let store = try await kind.makeStore()
        let documents = try (0..<3).map { _ in try record() }
        for document in documents { try await store.createDocument(document, owner: LocalUser.id) }
        let lengths = [1, 2_001, 2]
        let results = try await store.append(
            zip(documents, lengths).map { document, length in
                LogAppend(
                    id: document.id,
                    entries: (1...length).map { LogEntry(version: $0, edits: [.retitle("v\($0)")], date: Date()) },
                    summary: summary(document, version: length, emojiCount: 0, at: 1))
            })
        for (document, (length, result)) in zip(documents, zip(lengths, results)) {
            #expect(throws: Never.self) { try result.get() }
            let stored = try await store.loadCurrent(id: document.id)
            #expect(stored?.version == length)
            #expect(stored?.document.title == "v\(length)")
            #expect(try await store.logEntries(of: document.id, after: 0)?.count == length)
        }
    }

    /// A request's version is found in the log after a given version, and only there.
    @Test(arguments: StoreKind.available)
    func theLogTellsWhichVersionARequestMade(kind: StoreKind) async throws {
        let store = try await kind.makeStore()
        let document = try record()
        try await store.createDocument(document, owner: LocalUser.id)
        let entries = (1...3).map {
            LogEntry(version: $0, edits: [.retitle("v\($0)")], date: Date(), requestID: "request-\($0)")
        }
        try await store.append(entries, to: document.id, summary: summary(document, version: 3, emojiCount: 0, at: 1))
        #expect(try await store.version(ofRequest: "request-2", in: document.id, after: 0) == 2)
        #expect(try await store.version(ofRequest: "request-2", in: document.id, after: 1) == 2)
        #expect(try await store.version(ofRequest: "request-2", in: document.id, after: 2) == nil)
        #expect(try await store.version(ofRequest: "request-9", in: document.id, after: 0) == nil)
        #expect(try await store.version(ofRequest: "request-2", in: UUID(), after: 0) == nil)
    }

    /// The first request under a key's claim (``RequestKey``) is found by the whole claim,
    /// exactly: another case, a longer key, `%` and `_` are other claims.
    @Test(arguments: StoreKind.available)
    func theLogTellsWhichRequestTookAKey(kind: StoreKind) async throws {
        let store = try await kind.makeStore()
        let document = try record()
        try await store.createDocument(document, owner: LocalUser.id)
        func keyed(_ claim: String, _ digit: Character) -> String {
            RequestKey.requestID(
                claim: claim, fingerprint: String(repeating: digit, count: RequestKey.fingerprintLength))
        }
        let ids = [
            keyed("u edits A%_", "1"), keyed("u edits a%_", "2"), keyed("u edits A%_", "3"), "plain window id",
            keyed("u edits A%_x", "4"), "key " + String(repeating: "5", count: 40),
        ]
        let entries = ids.enumerated().map {
            LogEntry(version: $0 + 1, edits: [.retitle("v\($0)")], date: Date(), requestID: $1)
        }
        try await store.append(
            entries, to: document.id, summary: summary(document, version: entries.count, emojiCount: 0, at: 1))
        let first = try await store.firstRequest(in: document.id, claiming: "u edits A%_")
        #expect(first?.requestID == ids[0])
        #expect(first?.version == 1)
        #expect(try await store.firstRequest(in: document.id, claiming: "u edits a%_")?.version == 2)
        #expect(try await store.firstRequest(in: document.id, claiming: "u edits A%_x")?.version == 5)
        #expect(try await store.firstRequest(in: document.id, claiming: "u edits A_%") == nil)
        #expect(try await store.firstRequest(in: document.id, claiming: "u edits A") == nil)
        #expect(try await store.firstRequest(in: UUID(), claiming: "u edits A%_") == nil)
    }

    @Test(arguments: StoreKind.available)
    func snapshotsFoldTheLog(kind: StoreKind) async throws {
        let store = try await kind.makeStore()
        let stored = try record()
        try await store.createDocument(stored, owner: LocalUser.id)
        for version in 1...5 {
            try await store.append(
                [
                    LogEntry(
                        version: version, edits: [.addEmoji(text: "😀", position: Point(x: version, y: 0), size: 20)],
                        date: Date())
                ],
                to: stored.id, summary: summary(stored, version: version, emojiCount: version, at: Double(version)))
        }
        let current = try #require(try await store.loadCurrent(id: stored.id))
        var atThree = current
        atThree.version = 3
        try await store.saveSnapshot(current)
        let loaded = try #require(try await store.loadDocument(id: stored.id))
        #expect(loaded.snapshot.version == 5)
        #expect(loaded.log.isEmpty)
        #expect(loaded.snapshot.document == current.document)
        // An older snapshot never replaces a newer one.
        try await store.saveSnapshot(atThree)
        #expect(try await store.loadDocument(id: stored.id)?.snapshot.version == 5)
    }

    @Test(arguments: StoreKind.available)
    func deletingRemovesTheDocumentAndItsLog(kind: StoreKind) async throws {
        let store = try await kind.makeStore()
        let stored = try record()
        try await store.createDocument(stored, owner: LocalUser.id)
        try await store.append(
            [LogEntry(version: 1, edits: [.retitle("A")], date: Date())], to: stored.id,
            summary: summary(stored, version: 1, emojiCount: 0, at: 1))
        #expect(try await store.deleteDocument(id: stored.id))
        #expect(try await store.loadDocument(id: stored.id) == nil)
        #expect(try await !store.deleteDocument(id: stored.id))
        #expect(try await store.listDocuments().isEmpty)
    }

    /// An id is used once: a document made again under a deleted one's id (a late repeat of a
    /// browser's `PUT`, docs/OFFLINE.md) is refused and nothing is stored, however long after.
    @Test(arguments: StoreKind.available)
    func aDeletedDocumentsIdIsNeverUsedAgain(kind: StoreKind) async throws {
        let store = try await kind.makeStore()
        let stored = try record()
        try await store.createDocument(stored, owner: LocalUser.id)
        #expect(try await store.deleteDocument(id: stored.id))
        await #expect(throws: StoreError.notFound(stored.id)) {
            try await store.createDocument(stored, owner: LocalUser.id)
        }
        #expect(try await store.loadDocument(id: stored.id) == nil)
        #expect(try await store.listDocuments().isEmpty)
        // Other ids are made as ever.
        try await store.createDocument(try record(), owner: LocalUser.id)
        #expect(try await store.listDocuments().count == 1)
    }

    @Test(arguments: StoreKind.available)
    func palettesAreNilUntilSavedThenKeepTheirOrder(kind: StoreKind) async throws {
        let store = try await kind.makeStores().palettes
        #expect(try await store.loadPalettes(owner: LocalUser.id) == nil)
        var palettes = Palette.builtIns
        palettes.swapAt(0, 8)
        try await store.savePalettes(palettes, owner: LocalUser.id)
        #expect(try await store.loadPalettes(owner: LocalUser.id) == palettes)
        try await store.savePalettes([palettes[3]], owner: LocalUser.id)
        #expect(try await store.loadPalettes(owner: LocalUser.id) == [palettes[3]])
    }

    @Test(arguments: StoreKind.available)
    func imagesAreStoredOncePerContent(kind: StoreKind) async throws {
        let store = try await kind.makeStores().images
        let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/images")
        let image = try StoredImage(data: try Data(contentsOf: fixtures.appendingPathComponent("red-7x5-lossy.webp")))
        #expect(image.id == StoredImage.id(of: image.data))
        #expect(StoredImage.isID(image.id))
        #expect(image.mimeType == "image/webp")
        #expect(try await store.loadImage(id: image.id) == nil)
        try await store.saveImage(image)
        try await store.saveImage(image)
        #expect(try await store.loadImage(id: image.id) == image)
        #expect(try await store.loadImage(id: StoredImage.id(of: Data("other".utf8))) == nil)
    }

    @Test func theSQLiteFileSurvivesReopening() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("reopen-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let path = folder.appendingPathComponent("test.sqlite").path
        let stored = try record(title: "Kept")
        do {
            let store = try Stores.sqlite(path: path).documents
            try await store.createDocument(stored, owner: LocalUser.id)
            try await store.append(
                [LogEntry(version: 1, edits: [.addEmoji(text: "🐶", position: .zero, size: 9)], date: Date())],
                to: stored.id, summary: summary(stored, version: 1, emojiCount: 1, at: 1))
        }
        let reopened = try Stores.sqlite(path: path, durability: .normal).documents
        let current = try #require(try await reopened.loadCurrent(id: stored.id))
        #expect(current.document.title == "Kept")
        #expect(current.document.emojis.first?.text == "🐶")
    }
}
