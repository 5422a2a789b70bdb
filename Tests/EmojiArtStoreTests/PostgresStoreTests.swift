import EmojiArtKit
import EmojiArtStore
import EmojiArtTestSupport
import Foundation
import Synchronization
import Testing

@testable import EmojiArtStorePostgres

/// What only the PostgreSQL store does: versioned migrations shared by instances, two
/// instances on one database, clear errors when the database can't be used.
@Suite("The PostgreSQL store", .enabled(if: TestPostgres.url != nil, "needs $EMOJIART_TEST_POSTGRES (scripts/test)"))
struct PostgresStoreTests {
    @Test func instancesStartingTogetherMigrateOnce() async throws {
        let database = try await TestPostgres.freshDatabase()
        let stores = try await withThrowingTaskGroup(of: PostgreSQLDatabase.self) { group in
            for _ in 0..<4 { group.addTask { try await PostgreSQLDatabase.open(database) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        for store in stores {
            #expect(try await store.appliedMigrations() == PostgreSQLDatabase.migrationVersions)
            store.close()
        }
        // Opening again applies nothing new.
        let again = try await PostgreSQLDatabase.open(database)
        #expect(try await again.appliedMigrations() == PostgreSQLDatabase.migrationVersions)
        again.close()
    }

    @Test func twoInstancesAppendingTheSameVersionNeverForkADocument() async throws {
        let database = try await TestPostgres.freshDatabase()
        let (first, second) = (try await PostgreSQLDatabase.open(database), try await PostgreSQLDatabase.open(database))
        defer {
            first.close()
            second.close()
        }
        let (a, b) = (SQLDocumentStore(database: first), SQLDocumentStore(database: second))
        let date = Date(timeIntervalSince1970: 1_000)
        let record = StoredDocument(
            id: UUID(), document: try EmojiArtDocument(title: "Shared"), version: 0, createdAt: date, updatedAt: date)
        try await a.createDocument(record, owner: LocalUser.id)
        // Both instances race for every version; exactly one wins each.
        for version in 1...30 {
            let results = await withTaskGroup(of: Bool.self) { group in
                for (store, text) in [(a, "🦊"), (b, "🐶")] {
                    group.addTask {
                        let entry = LogEntry(
                            version: version, edits: [.addEmoji(text: text, position: Point(x: 0, y: 0), size: 40)],
                            date: date)
                        let summary = DocumentSummary(
                            id: record.id, title: "Shared", emojiCount: version, version: version, createdAt: date,
                            updatedAt: date)
                        do {
                            try await store.append([entry], to: record.id, summary: summary)
                            return true
                        } catch StoreError.versionConflict {
                            return false
                        } catch {
                            Issue.record("unexpected \(error)")
                            return false
                        }
                    }
                }
                return await group.reduce(into: []) { $0.append($1) }
            }
            #expect(results.filter { $0 }.count == 1, "version \(version): \(results)")
        }
        let loaded = try #require(try await b.loadDocument(id: record.id))
        #expect(loaded.log.map(\.version) == Array(1...30))
        #expect(try await a.listDocuments().first?.version == 30)
    }

    @Test func aDatabaseThatCantBeUsedIsSaidPlainly() async throws {
        var closed = try PostgreSQLDatabase.Connection(url: "postgres://emojiart@127.0.0.1:1/none?sslmode=disable")
        closed.port = 1
        await #expect {
            _ = try await PostgreSQLDatabase.open(closed)
        } throws: { error in
            "\(error)".contains("can't be used") && "\(error)".contains("refused")
        }
        var missing = try PostgreSQLDatabase.Connection(url: try #require(TestPostgres.url))
        missing.database = "no_such_database"
        await #expect {
            _ = try await PostgreSQLDatabase.open(missing)
        } throws: { error in
            "\(error)".contains("\"no_such_database\" does not exist")
        }
        #expect(throws: StoreError.self) { try PostgreSQLDatabase.Connection(url: "mysql://localhost/x") }
        #expect(throws: StoreError.self) { try PostgreSQLDatabase.Connection(url: "postgres://h/db?sslmode=maybe") }
        let parsed = try PostgreSQLDatabase.Connection(url: "postgresql://ann:s%40cret@db.internal:6543/art")
        #expect(parsed.username == "ann" && parsed.password == "s@cret" && parsed.port == 6543)
        #expect(parsed.description == "postgres://ann@db.internal:6543/art")  // no password in logs
        #expect(parsed.poolSize == 16)
        #expect(try PostgreSQLDatabase.Connection(url: "postgres://h/db?pool_max_conns=40").poolSize == 40)
        for bad in ["0", "1001", "many", ""] {
            #expect(throws: StoreError.self) {
                try PostgreSQLDatabase.Connection(url: "postgres://h/db?pool_max_conns=\(bad)")
            }
        }
    }

    /// Presence between servers: every payload reaches every server listening, in order, and
    /// never the store (no table, no transaction).
    @Test func broadcastsReachEveryServerInOrder() async throws {
        let database = try await TestPostgres.freshDatabase()
        let (first, second) = (try await PostgreSQLDatabase.open(database), try await PostgreSQLDatabase.open(database))
        defer {
            first.close()
            second.close()
        }
        let heard = Heard<InstanceBroadcastEvent>()
        let listening = Task { await second.followBroadcasts { await heard.add($0) } }
        defer { listening.cancel() }
        try await heard.waitFor(1)
        #expect(await heard.events == [.reconnected])
        let big = String(repeating: "x", count: first.maximumPayload)
        let payloads = ["one", "two \n 🦊", "three", big]
        try await first.broadcast(payloads)
        try await heard.waitFor(5)
        let events = await heard.events
        #expect(
            events == [.reconnected] + payloads.map(InstanceBroadcastEvent.payload),
            "\(events.map { "\($0)".prefix(40) })")
        // Over PostgreSQL's limit: refused, nothing sent.
        await #expect(throws: (any Error).self) {
            try await first.broadcast([big + String(repeating: "y", count: 200)])
        }
        try await first.broadcast([])
    }

    /// One `LISTEN` connection per server hears both its changes and its broadcasts:
    /// PostgreSQL wakes every listening connection of a database for every notification.
    @Test func oneListeningConnectionHearsChangesAndBroadcasts() async throws {
        let database = try await TestPostgres.freshDatabase()
        let (server, other) = (try await PostgreSQLDatabase.open(database), try await PostgreSQLDatabase.open(database))
        defer {
            server.close()
            other.close()
        }
        let heard = Heard<String>()
        let changes = Task { await server.followChanges { await heard.add("change \($0)") } }
        let broadcasts = Task { await server.followBroadcasts { await heard.add("broadcast \($0)") } }
        defer {
            changes.cancel()
            broadcasts.cancel()
        }
        try await heard.waitFor(2)
        #expect(Set(await heard.events) == ["change resync", "broadcast reconnected"])
        try await other.write([
            SQLStatement(
                "SELECT pg_notify(?, ?)", [.text(SQLDialect.postgresChannel), .text(StoreChange.palettes.payload)])
        ])
        try await other.broadcast(["hello"])
        try await heard.waitFor(4)
        #expect(Array(await heard.events.dropFirst(2)) == ["change palettes", "broadcast payload(\"hello\")"])
        let listening = try await other.read(
            SQLStatement(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN%'"))
        #expect(listening.first?[0].int == 1)
    }

    /// Connections closed under queries in flight (as a restart of PostgreSQL closes them) fail
    /// those queries; none waits for ever. postgres-nio alone left some waiting: a document's
    /// writer waiting there held every later edit of it (`PostgresConnection.whileOpen`).
    @Test func queriesOnAClosedConnectionFailInsteadOfWaitingForEver() async throws {
        let connection = try await TestPostgres.freshDatabase()
        let database = try await PostgreSQLDatabase.open(connection)
        let killer = try await PostgreSQLDatabase.open(connection)
        defer {
            database.close()
            killer.close()
        }
        _ = try await database.write([SQLStatement("CREATE TABLE scratch (n bigint)")])
        let progress = WorkerProgress()
        let workers = Task {
            await withTaskGroup(of: Void.self) { group in
                for worker in 0..<12 {
                    group.addTask {
                        while !Task.isCancelled {
                            do {
                                _ = try await database.write([
                                    SQLStatement("SELECT 1 FROM scratch LIMIT 1"),
                                    SQLStatement("INSERT INTO scratch VALUES (?)", [.integer(worker)]),
                                ])
                                progress.finished(worker, succeeded: true)
                            } catch {
                                progress.finished(worker, succeeded: false)
                                try? await Task.sleep(for: .milliseconds(20))
                            }
                        }
                    }
                }
            }
        }
        defer { workers.cancel() }
        // What a fast shutdown does to each connection, this database's only: the others' tests
        // share the server.
        for round in 0..<8 {
            try await Task.sleep(for: .milliseconds(150 + 37 * round))
            _ = try? await killer.write([
                SQLStatement(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()"
                )
            ])
        }
        // Every worker goes on: each finishes something after the last kill, none waits long.
        let deadline = ContinuousClock.now + .seconds(10)
        let lastKill = ContinuousClock.now
        while progress.stalled(since: lastKill) > 0, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(progress.stalled(since: lastKill) == 0)
        // And the database serves again once its health probe has found it: under a loaded CI the
        // kills can land on every query, and the first answers after them are quick refusals.
        while !progress.anySucceeded(since: lastKill), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(progress.anySucceeded(since: lastKill), "no query succeeded after the connections were closed")
        workers.cancel()
        await workers.value
        // Nothing is left waiting on a connection (once the health probe, which a kill starts,
        // has found the database again), and each connection is watched once.
        let settled = ContinuousClock.now + .seconds(10)
        while database.watch.count.waits > 0, ContinuousClock.now < settled {
            try await Task.sleep(for: .milliseconds(50))
        }
        let watched = database.watch.count
        #expect(watched.waits == 0 && watched.connections <= 16, "\(watched)")
        #expect(progress.failures > 0, "no query was in flight when its connection closed: the test tested nothing")
    }
}

/// What each worker of ``PostgresStoreTests/queriesOnAClosedConnectionFailInsteadOfWaitingForEver()`` last did.
private final class WorkerProgress: Sendable {
    private struct State {
        var lastFinished: [Int: ContinuousClock.Instant] = [:]
        var lastSucceeded: ContinuousClock.Instant?
        var failures = 0
    }
    private let state = Mutex(State())

    func finished(_ worker: Int, succeeded: Bool) {
        state.withLock {
            $0.lastFinished[worker] = .now
            if succeeded { $0.lastSucceeded = .now } else { $0.failures += 1 }
        }
    }

    /// How many of the 12 workers finished nothing after `instant`.
    func stalled(since instant: ContinuousClock.Instant) -> Int {
        state.withLock { state in (0..<12).count { (state.lastFinished[$0] ?? instant) <= instant } }
    }

    /// Whether any worker's query succeeded after `instant`.
    func anySucceeded(since instant: ContinuousClock.Instant) -> Bool {
        state.withLock { $0.lastSucceeded.map { $0 > instant } ?? false }
    }

    var failures: Int { state.withLock { $0.failures } }
}

/// What a listener heard, in order, for a test to wait on.
private actor Heard<Event: Sendable> {
    private(set) var events: [Event] = []

    func add(_ event: Event) { events.append(event) }

    /// Returns once `count` events were heard, or after 10 seconds (the test's expectations then
    /// say what is missing).
    func waitFor(_ count: Int) async throws {
        let deadline = ContinuousClock.now + .seconds(10)
        while events.count < count, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
    }
}

/// The append of one entry — most of what a server writes — is prepared once per connection.
@Suite("A prepared append", .enabled(if: TestPostgres.url != nil, "needs $EMOJIART_TEST_POSTGRES (scripts/test)"))
struct PreparedAppendTests {
    /// A store on a pool of one connection — every statement on it, so its prepared statements
    /// can be listed — holding one document titled `title`, made at 1,000 s.
    func oneConnection(
        _ title: String, _ test: (PostgreSQLDatabase, SQLDocumentStore, StoredDocument) async throws -> Void
    ) async throws {
        var connection = try await TestPostgres.freshDatabase()
        connection.poolSize = 1
        let database = try await PostgreSQLDatabase.open(connection)
        defer { database.close() }
        let store = SQLDocumentStore(database: database)
        let date = Date(timeIntervalSince1970: 1_000)
        let record = StoredDocument(
            id: UUID(), document: try EmojiArtDocument(title: title), version: 0, createdAt: date, updatedAt: date)
        try await store.createDocument(record, owner: LocalUser.id)
        try await test(database, store, record)
    }

    /// The document retitled "`title` `version`" at `version`, as one append.
    func retitle(
        _ store: SQLDocumentStore, _ record: StoredDocument, to version: Int, requestID: String? = nil,
        author: UUID? = nil
    ) async throws {
        let title = "\(record.document.title) \(version)"
        try await store.append(
            [
                LogEntry(
                    version: version, edits: [.retitle(title)], date: record.createdAt, requestID: requestID,
                    author: author)
            ],
            to: record.id,
            summary: DocumentSummary(
                id: record.id, title: title, emojiCount: 0, version: version, createdAt: record.createdAt,
                updatedAt: record.createdAt.addingTimeInterval(Double(version))))
    }

    @Test func oneEntryAppendsArePreparedOnceAndLongerOnesAreNot() async throws {
        try await oneConnection("Prepared") { database, store, record in
            for version in 1...3 {
                try await retitle(
                    store, record, to: version, requestID: version == 1 ? nil : "r\(version)",
                    author: version == 2 ? LocalUser.id : nil)
            }
            try await store.append(
                [4, 5].map { LogEntry(version: $0, edits: [.retitle("Prepared \($0)")], date: record.createdAt) },
                to: record.id,
                summary: DocumentSummary(
                    id: record.id, title: "Prepared 5", emojiCount: 0, version: 5, createdAt: record.createdAt,
                    updatedAt: record.createdAt.addingTimeInterval(5)))
            let prepared = try await database.read(
                SQLStatement("SELECT statement FROM pg_prepared_statements WHERE statement LIKE '%WITH moved AS%'"))
            #expect(prepared.map { $0[0].string } == [PreparedAppend.sql])
            // Refusals read the same from a prepared append.
            let stale = try await store.append([
                LogAppend(
                    id: record.id, entries: [LogEntry(version: 3, edits: [.retitle("Stale")], date: record.createdAt)],
                    summary: DocumentSummary(
                        id: record.id, title: "Stale", emojiCount: 0, version: 3, createdAt: record.createdAt,
                        updatedAt: record.createdAt))
            ])
            #expect(throws: StoreError.versionConflict(id: record.id, expected: 2)) { try stale[0].get() }
            let loaded = try #require(try await store.loadDocument(id: record.id))
            #expect(loaded.log.map(\.version) == [1, 2, 3, 4, 5])
            #expect(loaded.log.map(\.requestID) == [nil, "r2", "r3", nil, nil])
            #expect(loaded.log[1].author == LocalUser.id)
            #expect(try await store.listDocuments().first?.title == "Prepared 5")
        }
    }

    @Test func aConnectionWhereItFailedGoesOnUnprepared() async throws {
        try await oneConnection("Unprepared") { database, store, record in
            // Its preparation fails once on the pool's one connection (postgres-nio keeps that
            // failure for the connection's life) …
            try await database.write(SQLStatement("ALTER TABLE document RENAME COLUMN title_key TO title_key_away"))
            await #expect(throws: (any Error).self) { try await retitle(store, record, to: 1) }
            try await database.write(SQLStatement("ALTER TABLE document RENAME COLUMN title_key_away TO title_key"))
            // … and the connection goes on with the statement unprepared.
            try await retitle(store, record, to: 1)
            #expect(try await store.listDocuments().first?.version == 1)
            let prepared = try await database.read(
                SQLStatement("SELECT count(*) FROM pg_prepared_statements WHERE statement LIKE '%WITH moved AS%'"))
            #expect(prepared.first?[0].int == 0)
        }
    }

    @Test func anAppendWhosePreparedStatementIsGoneIsWrittenUnprepared() async throws {
        try await oneConnection("Pooled") { database, store, record in
            try await retitle(store, record, to: 1, requestID: "r1")
            // As a pooler in transaction mode would: the server forgets it, postgres-nio doesn't.
            try await database.write(SQLStatement("DEALLOCATE ALL"))
            try await retitle(store, record, to: 2, requestID: "r2")  // refused prepared, written unprepared: once
            try await retitle(store, record, to: 3, requestID: "r3")
            let loaded = try #require(try await store.loadDocument(id: record.id))
            #expect(loaded.log.map(\.requestID) == ["r1", "r2", "r3"])
        }
    }
}
