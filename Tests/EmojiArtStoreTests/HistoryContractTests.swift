import EmojiArtKit
import EmojiArtStore
import EmojiArtTestSupport
import Foundation
import Testing

/// Documents' history on every store: the log kept past snapshots, checkpoints, reading any
/// version, pages and sessions, and thinning (issue #19).
@Suite("Document history on every store")
struct HistoryContractTests {
    static let start = Date(timeIntervalSince1970: 1_700_000_000)

    /// A document with `count` versions: adds, then moves, each `spacing` seconds after the last.
    func makeDocument(
        _ store: any DocumentStore, versions count: Int, spacing: TimeInterval = 1, author: UUID? = nil
    ) async throws -> (StoredDocument, [EmojiArtDocument]) {
        let record = StoredDocument(
            id: UUID(), document: try EmojiArtDocument(title: "History"), version: 0, createdAt: Self.start,
            updatedAt: Self.start)
        try await store.createDocument(record, owner: LocalUser.id)
        var document = record.document
        var states = [document]
        var entries: [LogEntry] = []
        for version in 1...count {
            let edit: Edit =
                version <= 3
                ? .addEmoji(text: "🐶", position: Point(x: version, y: 0), size: 40)
                : .moveEmojis(ids: [version % 3 + 1], offset: Point(x: 1, y: version % 5))
            try document.apply(edit)
            states.append(document)
            entries.append(
                LogEntry(
                    version: version, edits: [edit], date: Self.start.addingTimeInterval(Double(version) * spacing),
                    step: .perform(gesture: nil), requestID: "r\(version)", author: author))
        }
        for chunk in stride(from: 0, to: entries.count, by: 200) {
            let part = Array(entries[chunk..<min(chunk + 200, entries.count)])
            let last = part.last!
            try await store.append(
                part, to: record.id,
                summary: DocumentSummary(
                    id: record.id, title: "History", emojiCount: 3, version: last.version, createdAt: Self.start,
                    updatedAt: last.date))
        }
        return (record, states)
    }

    @Test(arguments: StoreKind.available)
    func everyVersionReadsBackAfterSnapshotsAndCheckpoints(kind: StoreKind) async throws {
        let store = try await kind.makeStore()
        let (record, states) = try await makeDocument(store, versions: 120)
        let reader = HistoryReader(store: store, checkpointInterval: 25)
        // A snapshot no longer drops the log it covers: history stays.
        var current = try #require(try await store.loadCurrent(id: record.id))
        try await store.saveSnapshot(current)
        #expect(try await store.loadDocument(id: record.id)?.log.isEmpty == true)
        #expect(try await reader.writeCheckpoints(of: record.id, through: 120) == 100)
        #expect(try await reader.oldestVersion(of: record.id, through: 120) == 0)
        // A replay's frames: near ones folded on, far ones (past a checkpoint interval) read afresh.
        let sampled = [0, 1, 2, 7, 49, 50, 51, 99, 120]
        let frames = try #require(try await reader.documents(of: record.id, at: sampled))
        #expect(frames.map(\.version) == sampled)
        #expect(frames.map(\.document) == sampled.map { states[$0] })
        #expect(try await store.checkpoint(of: record.id, atOrBefore: 99)?.version == 75)
        for version in [0, 1, 24, 25, 26, 74, 99, 100, 101, 119, 120] {
            let read = try #require(try await reader.document(id: record.id, at: version))
            #expect(read.version == version)
            #expect(read.document == states[version], "version \(version)")
        }
        #expect(try await reader.document(id: record.id, at: 121) == nil)
        #expect(try await reader.document(id: record.id, at: -1) == nil)
        #expect(try await reader.document(id: UUID(), at: 1) == nil)
        // Checkpoints never change what a version is, and writing them twice keeps one.
        #expect(try await reader.writeCheckpoints(of: record.id, through: 120) == 100)
        current.version = 120
        #expect(try await store.loadCurrent(id: record.id)?.document == states[120])
    }

    @Test(arguments: StoreKind.available)
    func logEntriesKeepAuthorsUndoNamesAndRestores(kind: StoreKind) async throws {
        let store = try await kind.makeStore()
        let author = UUID()
        let (record, states) = try await makeDocument(store, versions: 4, author: nil)
        let restore = Edit.restoreVersion(
            RestoredVersion(version: 2, actionName: "Restore Version of 14:02", document: states[2]))
        try await store.append(
            [
                LogEntry(
                    version: 5, edits: [restore], date: Self.start.addingTimeInterval(10), step: .perform(gesture: nil),
                    author: author),
                LogEntry(
                    version: 6,
                    edits: [.restoreVersion(RestoredVersion(version: nil, actionName: "x", document: states[4]))],
                    date: Self.start.addingTimeInterval(11), step: .undo, author: author,
                    actionName: "Restore Version of 14:02"),
            ], to: record.id,
            summary: DocumentSummary(
                id: record.id, title: "History", emojiCount: 2, version: 6, createdAt: Self.start,
                updatedAt: Self.start.addingTimeInterval(11)))
        let entries = try await store.logEntries(of: record.id, in: 5...6)
        #expect(entries.map(\.author) == [author, author])
        #expect(entries.map(\.displayName) == ["Restore Version of 14:02", "Undo Restore Version of 14:02"])
        #expect(entries[0].edits == [restore])
        let reader = HistoryReader(store: store)
        #expect(try await reader.document(id: record.id, at: 5)?.document == states[2])
        #expect(try await reader.document(id: record.id, at: 6)?.document == states[4])
        #expect(try await store.recentLogEntries(of: record.id, through: 5, limit: 2).map(\.version) == [5, 4])
    }

    @Test(arguments: StoreKind.available)
    func pagesListVersionsNewestFirstWithWholeSessions(kind: StoreKind) async throws {
        let store = try await kind.makeStore()
        // 30 versions a minute apart, then a 10-minute pause, then 30 more.
        let (record, _) = try await makeDocument(store, versions: 30, spacing: 60)
        let later = Self.start.addingTimeInterval(30 * 60 + 600)
        try await store.append(
            (31...60).map {
                LogEntry(
                    version: $0, edits: [.moveEmojis(ids: [1], offset: Point(x: 1, y: 0))],
                    date: later.addingTimeInterval(Double($0 - 31) * 60), step: .perform(gesture: nil))
            }, to: record.id,
            summary: DocumentSummary(
                id: record.id, title: "History", emojiCount: 3, version: 60, createdAt: Self.start, updatedAt: later))
        let reader = HistoryReader(store: store)
        let first = try await reader.page(of: record.id, before: 61, limit: 40)
        #expect(first.entries.map(\.version) == Array((21...60).reversed()))
        #expect(first.next == 21)
        #expect(first.origin == nil)
        #expect(first.sessions.map(\.first) == [31, 1], "the older session is whole, beyond the page")
        #expect(first.sessions.map(\.last) == [60, 30])
        #expect(first.sessions[0].summary == "1 emoji moved")
        #expect(first.sessions[1].summary == "3 emojis added, 3 moved")
        let second = try await reader.page(of: record.id, before: 21, limit: 40)
        #expect(second.entries.map(\.version) == Array((1...20).reversed()))
        #expect(second.next == nil)
        #expect(second.origin?.version == 0)
        #expect(second.sessions.map(\.first) == [1])
        #expect(second.sessions.map(\.last) == [30], "the session runs on into the newer page")
    }

    @Test(arguments: StoreKind.available)
    func thinningKeepsTheLastVersionOfEachOldDay(kind: StoreKind) async throws {
        let store = try await kind.makeStore()
        // 96 versions an hour apart: four days.
        let (record, states) = try await makeDocument(store, versions: 96, spacing: 3_600)
        let reader = HistoryReader(store: store, checkpointInterval: 10)
        try await reader.writeCheckpoints(of: record.id, through: 96)
        let now = Self.start.addingTimeInterval(96 * 3_600)
        let dates = (1...96).map { (version: $0, date: Self.start.addingTimeInterval(Double($0) * 3_600)) }
        let retention = HistoryRetention(days: 2, reader: reader)
        let removed = try await retention.thin(record.id, now: now)
        let cutoff = now.addingTimeInterval(-2 * 86_400)
        let old = dates.filter { $0.date < cutoff }
        let kept = HistoryRetention.dailyVersions(old)
        #expect(removed == old.count - kept.count)
        #expect(removed > 0)
        for version in 0...96 {
            let read = try await reader.document(id: record.id, at: version)
            if version > old.last!.version || kept.contains(version) {
                #expect(read?.document == states[version], "version \(version) stays")
            } else {
                #expect(read == nil, "version \(version) was thinned")
            }
        }
        // The snapshot opening starts from moved up to the cut: what it replays is all there.
        #expect(try await store.loadDocument(id: record.id)?.snapshot.version == old.last!.version)
        #expect(try await store.loadCurrent(id: record.id)?.document == states[96])
        // Replaying from where history now starts crosses the thinned days, one kept version
        // at a time, and ends at the document now.
        let oldest = try await reader.oldestVersion(of: record.id, through: 96)
        #expect(oldest == kept[0])
        let changes = try #require(try await reader.changes(of: record.id, after: oldest, through: 96, limit: 200))
        #expect(changes.map(\.entry.version) == Array(kept.dropFirst()) + Array((old.last!.version + 1)...96))
        #expect(changes.filter { $0.follows != nil }.count == kept.count - 1)
        var replayed = states[oldest]
        for change in changes { try change.patch.apply(to: &replayed) }
        #expect(replayed == states[96])
        // A page of one change still steps over a thinned gap, however long, to the next kept.
        #expect(kept[1] - kept[0] > 1)
        var step = oldest
        var stepped: [Int] = []
        while step < 96, let next = try await reader.changes(of: record.id, after: step, through: 96, limit: 1)?.first {
            stepped.append(next.entry.version)
            step = next.entry.version
        }
        #expect(stepped == changes.map(\.entry.version))
        let frames = try #require(try await reader.documents(of: record.id, at: [oldest, oldest + 1, kept[1], 96]))
        #expect(frames.map(\.document) == [states[oldest], states[oldest], states[kept[1]], states[96]])
        // Thinning again removes nothing more.
        #expect(try await retention.thin(record.id, now: now) == 0)
    }
}
