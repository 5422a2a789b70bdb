import EmojiArtKit
import EmojiArtStore
import EmojiArtStorePostgres
import EmojiArtTestSupport
import Foundation
import Testing

@testable import EmojiArtLive

/// Several servers on one PostgreSQL database, as libraries in one process, each with its own
/// store (its own connections) and its own feed of the changes the others commit.
@Suite(
    "Servers sharing a PostgreSQL store",
    .enabled(if: TestPostgres.url != nil, "needs $EMOJIART_TEST_POSTGRES (scripts/test)"))
struct SharedStoreTests {
    /// One "server": a library on its own store, hearing the store's changes.
    final class Server: Sendable {
        let database: PostgreSQLDatabase
        let library: DocumentLibrary
        let listening: Task<Void, Never>

        init(_ connection: PostgreSQLDatabase.Connection) async throws {
            database = try await PostgreSQLDatabase.open(connection)
            library = DocumentLibrary(store: SQLDocumentStore(database: database))
            let (database, library) = (self.database, self.library)
            let ready = AsyncStream.makeStream(of: Void.self)
            listening = Task {
                await database.followChanges { change in
                    if change == .resync { ready.continuation.yield() }
                    await library.storeChanged(change)
                }
            }
            // Listening from here on.
            var iterator = ready.stream.makeAsyncIterator()
            await iterator.next()
        }

        func close() {
            listening.cancel()
            database.close()
        }

        func perform(_ id: UUID, _ edits: [Edit], base: Int, requestID: String? = nil) async throws -> LiveDocumentState
        {
            try #require(
                try await library.withDocument(id) {
                    try await $0.perform(edits, baseVersion: base, requestID: requestID)
                })
        }

        func state(_ id: UUID) async throws -> LiveDocumentState {
            try #require(try await library.withDocument(id) { try await $0.state() })
        }
    }

    func add(_ text: String, x: Int = 0) -> Edit { .addEmoji(text: text, position: Point(x: x, y: 0), size: 40) }

    func servers() async throws -> (Server, Server) {
        let database = try await TestPostgres.freshDatabase()
        return (try await Server(database), try await Server(database))
    }

    /// The next change event, within a few seconds.
    func nextChange(_ events: inout AsyncStream<LiveEvent>.Iterator) async throws -> LiveChange {
        while let event = await events.next() {
            if case .change(let change) = event { return change }
        }
        throw CancellationError()
    }

    @Test func aWindowOnOneServerSeesEditsMadeThroughTheOther() async throws {
        let (a, b) = try await servers()
        defer {
            a.close()
            b.close()
        }
        let created = try await a.library.create(try EmojiArtDocument(title: "Shared"))
        let onB = try #require(try await b.library.document(created.id))
        var events = try await onB.subscribe().events.makeAsyncIterator()

        _ = try await a.perform(created.id, [add("🦊")], base: 0)
        let change = try await nextChange(&events)
        #expect(change.version == 1 && change.undoActionName == "Add 🦊")
        #expect(try await b.state(created.id).document.emojis.map(\.text) == ["🦊"])

        // A rename and a deletion through A reach B's window too.
        _ = try await a.perform(created.id, [.retitle("Renamed")], base: 1)
        #expect(try await nextChange(&events).version == 2)
        #expect(try await b.state(created.id).document.title == "Renamed")
        #expect(try await a.library.delete(created.id))
        var sawDeleted = false
        while let event = await events.next() {
            if event == .deleted { sawDeleted = true }
        }
        #expect(sawDeleted)
        #expect(try await b.library.withDocument(created.id) { try await $0.state() } == nil)
    }

    /// A copy no window ever followed doesn't read the log for every change another server
    /// makes: it closes when it hears one, and opens afresh, up to date, when next used. A
    /// followed copy catches up and stays, after its windows have gone too.
    @Test func aCopyNoWindowFollowsClosesWhenAnotherServerChangesItsDocument() async throws {
        let (a, b) = try await servers()
        defer {
            a.close()
            b.close()
        }
        let unwatched = try await b.library.create(try EmojiArtDocument(title: "Made here, edited there"))
        let watched = try await b.library.create(try EmojiArtDocument(title: "Followed here"))
        let onB = try #require(try await b.library.document(watched.id))
        let subscription = try await onB.subscribe()
        var events = subscription.events.makeAsyncIterator()
        #expect(await b.library.openCount == 2)

        _ = try await a.perform(watched.id, [add("🦊")], base: 0)
        #expect(try await nextChange(&events).version == 1)
        _ = try await a.perform(unwatched.id, [add("🐼")], base: 0)
        var waited = 0
        while await b.library.openCount > 1, waited < 500 {
            try await Task.sleep(for: .milliseconds(10))
            waited += 1
        }
        #expect(await b.library.openCount == 1, "the unwatched copy stayed open")
        // Both answer with what A wrote: the followed copy caught up, the other opens afresh.
        #expect(try await b.state(watched.id).document.emojis.map(\.text) == ["🦊"])
        #expect(try await b.state(unwatched.id).document.emojis.map(\.text) == ["🐼"])
        #expect(try await b.perform(unwatched.id, [add("🐨")], base: 1).version == 2)
        // A's copy, no window's either, closes in turn when it hears that (soon, not at once).
        waited = 0
        while try await a.state(unwatched.id).version < 2, waited < 500 {
            try await Task.sleep(for: .milliseconds(10))
            waited += 1
        }
        #expect(try await a.state(unwatched.id).document.emojis.map(\.text) == ["🐼", "🐨"])

        // A copy a window followed stays open when that window is gone (it remembers what it
        // refused, for a window that resends), and keeps catching up.
        subscription.end()
        let before = await b.library.openCount
        _ = try await a.perform(watched.id, [add("🦉")], base: 1)
        waited = 0
        while await onB.version < 2, waited < 500 {
            try await Task.sleep(for: .milliseconds(10))
            waited += 1
        }
        #expect(await onB.version == 2)
        #expect(await b.library.openCount == before)
    }

    /// History is the database's: a restore through one server reaches the other's windows as
    /// one change, and either server's undo reverses it.
    @Test func aRestoreThroughOneServerIsOneChangeOnTheOther() async throws {
        let (a, b) = try await servers()
        defer {
            a.close()
            b.close()
        }
        let created = try await a.library.create(try EmojiArtDocument(title: "Shared past"))
        for x in 0..<3 { _ = try await a.perform(created.id, [add("🦊", x: x)], base: x) }
        let onB = try #require(try await b.library.document(created.id))
        var events = try await onB.subscribe().events.makeAsyncIterator()
        let atOne = try #require(try await b.library.history.document(id: created.id, at: 1))
        let restored = try #require(
            try await a.library.restore(created.id, to: 1, author: nil) { _ in "Restore Version of 14:02" })
        #expect(restored.document == atOne.document)
        let change = try await nextChange(&events)
        #expect(change.version == 4 && change.undoActionName == "Restore Version of 14:02")
        #expect(try await b.state(created.id).document == atOne.document)
        let undone = try #require(try await b.library.withDocument(created.id) { try await $0.undo() })
        #expect(undone.document.emojis.count == 3)
        #expect(try await a.library.history.document(id: created.id, at: 5)?.document == undone.document)
    }

    @Test func undoAndRedoActOnTheOneHistoryWhicheverServerIsAsked() async throws {
        let (a, b) = try await servers()
        defer {
            a.close()
            b.close()
        }
        let id = try await a.library.create(try EmojiArtDocument(title: "History")).id
        _ = try await b.state(id)  // open on B too
        _ = try await a.perform(id, [add("🦊")], base: 0)
        _ = try await b.perform(id, [add("🐶", x: 50)], base: 1)
        // A gesture through A: two moves, one undo step.
        _ = try await a.perform(id, [.moveEmojis(ids: [1], offset: Point(x: 5, y: 0))], base: 2)
        let moved = try await a.library.withDocument(id) {
            try await $0.perform([.moveEmojis(ids: [1], offset: Point(x: 5, y: 0))], baseVersion: 3, gesture: "drag")
        }
        #expect(moved?.version == 4)
        try await waitUntil { try await b.state(id).version == 4 }

        // Undo through B undoes A's last step; B and A agree on what comes next.
        let undone = try #require(try await b.library.withDocument(id) { try await $0.undo() })
        #expect(undone.document.emojis.first?.position.x == 5)
        try await waitUntil { try await a.state(id).version == 5 }
        let (onA, onB) = (try await a.state(id), try await b.state(id))
        #expect(onA.undoActionName == onB.undoActionName && onA.redoActionName == onB.redoActionName)
        #expect(onA.redoActionName == "Move")
        // Undo through A now undoes the previous move, made through A.
        _ = try await a.library.withDocument(id) { try await $0.undo() }
        // Then B's own add.
        _ = try await a.library.withDocument(id) { try await $0.undo() }
        try await waitUntil { try await b.state(id).version == 7 }
        #expect(try await b.state(id).document.emojis.map(\.text) == ["🦊"])
        // Redo through B brings the dog back.
        let redone = try #require(try await b.library.withDocument(id) { try await $0.redo() })
        #expect(redone.document.emojis.map(\.text) == ["🦊", "🐶"])
    }

    @Test func concurrentEditsThroughBothServersAreAllKeptInOneOrder() async throws {
        let (a, b) = try await servers()
        defer {
            a.close()
            b.close()
        }
        let id = try await a.library.create(try EmojiArtDocument(title: "Busy")).id
        let acknowledged = try await withThrowingTaskGroup(of: [String].self) { group in
            for (server, name) in [(a, "a"), (b, "b")] {
                for worker in 0..<4 {
                    group.addTask {
                        var texts: [String] = []
                        for index in 0..<15 {
                            let emoji = ["🦊", "🐶", "🐱", "🐭"][(index + worker) % 4]
                            // Intents are relative: a stale base is fine when the edits still apply.
                            _ = try await server.perform(
                                id, [add(emoji, x: index * 10 + worker)], base: 0,
                                requestID: "\(name)-\(worker)-\(index)")
                            texts.append("\(name)-\(worker)-\(index)")
                        }
                        return texts
                    }
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
        #expect(acknowledged.count == 120)
        // Every acknowledged edit is in the document, once, and both servers agree.
        try await waitUntil {
            let (onA, onB) = (try await a.state(id), try await b.state(id))
            return onA.version == 120 && onB.version == 120
        }
        let (onA, onB) = (try await a.state(id), try await b.state(id))
        #expect(onA.document == onB.document)
        #expect(onA.document.emojis.count == 120)
        let stored = try #require(try await a.library.store.loadCurrent(id: id))
        #expect(stored.version == 120 && stored.document == onA.document)
    }

    @Test func aRequestResentToTheOtherServerIsNotAppliedTwice() async throws {
        let (a, b) = try await servers()
        defer {
            a.close()
            b.close()
        }
        let id = try await a.library.create(try EmojiArtDocument(title: "Resent")).id
        _ = try await b.state(id)
        _ = try await a.perform(id, [add("🦊")], base: 0, requestID: "window-1")
        try await waitUntil { try await b.state(id).version == 1 }
        // The window lost its connection to A before the acknowledgement and resends to B.
        let again = try await b.perform(id, [add("🦊")], base: 0, requestID: "window-1")
        #expect(again.version == 1 && again.document.emojis.count == 1)
    }

    /// Polls `condition` until it holds (at most 5 s).
    func waitUntil(_ condition: () async throws -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(5)
        while try await !condition() {
            guard ContinuousClock.now < deadline else {
                Issue.record("timed out waiting")
                return
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }
}
