import EmojiArtKit
import EmojiArtStore
import EmojiArtStorePostgres
import EmojiArtStoreSQLite
import EmojiArtTestSupport
import Foundation
import Logging

/// `emojiart-bench listing`: the first page of one person's document list (`GET /api/documents`,
/// ``DocumentListing``) while the installation grows to 10,000, 100,000 and 1,000,000 documents
/// across 10,000 users (and one more, whose 100 stay 100) — on SQLite, and on PostgreSQL when `$EMOJIART_TEST_POSTGRES` names one
/// (scripts/benchmark starts a throwaway cluster). At each size: a member's first page of 50,
/// their page after it, a title search, local mode's first page of everyone's; then, at the
/// largest, a user with 10,000 documents of their own. Median and p95 of the store's answer.
enum ListingBenchmarks {
    static func run(smoke: Bool, into report: inout Report) async throws {
        // `EMOJIART_BENCH_LISTING_ONLY=drawn`: only the drawn documents' run, on fresh databases.
        let drawnOnly = ProcessInfo.processInfo.environment["EMOJIART_BENCH_LISTING_ONLY"] == "drawn"
        let sizes = smoke ? [1_000, 3_000] : [10_000, 100_000, 1_000_000]
        let users = smoke ? 100 : 10_000
        let folder = benchmarkFolder("listing")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let sqlite = try SQLiteDatabase(path: folder.appendingPathComponent("listing.sqlite").path)
        if drawnOnly {
            try await measureDrawnDocuments(sqlite, label: "SQLite", smoke: smoke, into: &report)
        } else {
            try await measure(sqlite, label: "SQLite", sizes: sizes, users: users, smoke: smoke, into: &report)
        }
        if TestPostgres.url != nil {
            var logger = Logger(label: "bench")
            logger.logLevel = .error
            let postgres = try await PostgreSQLDatabase.open(try await TestPostgres.freshDatabase(), logger: logger)
            defer { postgres.close() }
            if drawnOnly {
                try await measureDrawnDocuments(postgres, label: "PostgreSQL", smoke: smoke, into: &report)
            } else {
                try await measure(
                    postgres, label: "PostgreSQL", sizes: sizes, users: users, smoke: smoke, into: &report)
            }
        } else if !smoke {
            print("(set $EMOJIART_TEST_POSTGRES for the PostgreSQL figures; scripts/benchmark listing does)")
        }
    }

    static func measure(
        _ database: any SQLDatabase, label: String, sizes: [Int], users: Int, smoke: Bool, into report: inout Report
    ) async throws {
        let store = SQLDocumentStore(database: database)
        let userIDs = (0..<users).map { _ in UUID() }
        try await insertUsers(userIDs, into: database)
        // One person whose 100 documents stay 100 while everyone else's grow: their page's cost
        // is theirs alone.
        let steady = UUID()
        try await insertUsers([steady], into: database)
        try await insertDocuments(from: 0, to: 100, owners: [steady], into: database)
        var made = 100
        for size in sizes {
            let started = ContinuousClock.now
            try await insertDocuments(from: made, to: size + 100, owners: userIDs, into: database)
            made = size + 100
            print("\(label): \(size) documents made in \(Int(seconds(ContinuousClock.now - started))) s")
            var random = SplitMix64(seed: UInt64(size))
            let sample = (0..<20).map { _ in userIDs[Int.random(in: 0..<users, using: &random)] }
            let name = "\(label), \(size.formatted()) documents / \(users.formatted()) users"
            let first = try await timings(repeating: smoke ? 2 : 10, over: sample) { user in
                _ = try await store.listDocuments(DocumentListing(scope: .visible(user: user, links: [:]), limit: 50))
            }
            report.add("\(name): a member's first page", first.text, target: "≤ 30 ms p95")
            let steadyFirst = try await timings(repeating: smoke ? 10 : 200, over: [steady]) { user in
                _ = try await store.listDocuments(DocumentListing(scope: .visible(user: user, links: [:]), limit: 50))
            }
            report.add("\(name): first page of the user with 100", steadyFirst.text)
            let next = try await timings(repeating: smoke ? 2 : 10, over: sample) { user in
                let page = try await store.listDocuments(
                    DocumentListing(scope: .visible(user: user, links: [:]), limit: 5))
                _ = try await store.listDocuments(
                    DocumentListing(scope: .visible(user: user, links: [:]), after: page.next, limit: 5))
            }
            report.add("\(name): first page of 5 and the next", next.text)
            let search = try await timings(repeating: smoke ? 2 : 10, over: sample) { user in
                _ = try await store.listDocuments(
                    DocumentListing(scope: .visible(user: user, links: [:]), titleContains: "7", limit: 50))
            }
            report.add("\(name): a member's search", search.text)
            let everything = try await timings(repeating: smoke ? 2 : 10, over: sample) { _ in
                _ = try await store.listDocuments(DocumentListing(scope: .everything, limit: 50))
            }
            report.add("\(name): local mode's first page", everything.text)
        }
        // One person with many documents of their own: the cost grows with theirs.
        let heavy = userIDs[0]
        let own = smoke ? 500 : 10_000
        try await insertDocuments(from: made, to: made + own, owners: [heavy], into: database)
        let heavyFirst = try await timings(repeating: smoke ? 5 : 100, over: [heavy]) { user in
            _ = try await store.listDocuments(DocumentListing(scope: .visible(user: user, links: [:]), limit: 50))
        }
        report.add("\(label): first page of a user with \(own.formatted()) documents", heavyFirst.text)
        try await measureDrawnDocuments(database, label: label, smoke: smoke, into: &report)
    }

    /// The documents above are rows with empty snapshots; real ones hold their drawings. SQLite
    /// keeps a snapshot in its row before the columns a list shows (``SQLDialect/keepsLargeValuesInRow``):
    /// one user with 2,000 documents of 1,000 emojis each (~50 KB), their list's first page and
    /// a search, and local mode's first page.
    static func measureDrawnDocuments(
        _ database: any SQLDatabase, label: String, smoke: Bool, into report: inout Report
    ) async throws {
        let store = SQLDocumentStore(database: database)
        var document = try EmojiArtDocument(title: "Drawn")
        var random = SplitMix64(seed: 7)
        for _ in 0..<1_000 {
            _ = try document.apply(
                .addEmoji(
                    text: ["😀", "🐶", "🌳", "🏠"][Int.random(in: 0..<4, using: &random)],
                    position: Point(
                        x: Int.random(in: -500...500, using: &random), y: Int.random(in: -500...500, using: &random)),
                    size: 40))
        }
        let snapshot = Data(EmojiArtFile.write(document, as: .native).bytes)
        let user = UUID()
        try await insertUsers([user], into: database)
        let count = smoke ? 200 : 2_000
        try await insertDocuments(from: 0, to: count, owners: [user], snapshot: snapshot, into: database)
        let name = "\(label), a user with \(count.formatted()) drawn documents (\(snapshot.count / 1024) KB snapshots)"
        let first = try await timings(repeating: smoke ? 5 : 100, over: [user]) { user in
            _ = try await store.listDocuments(DocumentListing(scope: .visible(user: user, links: [:]), limit: 50))
        }
        report.add("\(name): first page", first.text)
        let search = try await timings(repeating: smoke ? 5 : 100, over: [user]) { user in
            _ = try await store.listDocuments(
                DocumentListing(scope: .visible(user: user, links: [:]), titleContains: "7", limit: 50))
        }
        report.add("\(name): search", search.text)
        let everything = try await timings(repeating: smoke ? 5 : 100, over: [user]) { _ in
            _ = try await store.listDocuments(DocumentListing(scope: .everything, limit: 50))
        }
        report.add("\(name): local mode's first page", everything.text)
    }

    struct Timings {
        var sorted: [Double]
        var text: String {
            String(
                format: "median %.2f ms, p95 %.2f ms (%d reads)", percentile(sorted, 0.5) * 1000,
                percentile(sorted, 0.95) * 1000, sorted.count)
        }
    }

    /// How long `body` takes for each of `subjects`, `repeating` times over: once over all of
    /// them first, unmeasured, so every figure is of a warm database.
    static func timings(
        repeating: Int, over subjects: [UUID], _ body: (UUID) async throws -> Void
    ) async throws -> Timings {
        for subject in subjects { try await body(subject) }
        var times: [Double] = []
        for _ in 0..<repeating {
            for subject in subjects {
                let start = ContinuousClock.now
                try await body(subject)
                times.append(seconds(ContinuousClock.now - start))
            }
        }
        return Timings(sorted: times.sorted())
    }

    static func insertUsers(_ ids: [UUID], into database: any SQLDatabase) async throws {
        for start in stride(from: 0, to: ids.count, by: 1_000) {
            let batch = ids[start..<min(start + 1_000, ids.count)]
            try await database.write([
                SQLStatement(
                    "INSERT INTO app_user (id, name, name_key, password_hash, is_admin, created_at, password_changed_at) VALUES "
                        + batch.map { _ in "(?, ?, ?, '!', 0, 0, 0)" }.joined(separator: ", "),
                    batch.flatMap { id in
                        [.uuid(id), .text("user " + id.uuidString), .text(id.uuidString.lowercased())]
                    })
            ])
        }
    }

    /// Documents `from..<to`, each owned by one of `owners` in turn, changed at times spread over
    /// a year in no order, titled "Document N": rows only (an empty snapshot unless one is
    /// given), as a backup would restore them.
    static func insertDocuments(
        from: Int, to: Int, owners: [UUID], snapshot given: Data? = nil, into database: any SQLDatabase
    ) async throws {
        let snapshot = try given ?? Data(EmojiArtFile.write(try EmojiArtDocument(title: "Document"), as: .native).bytes)
        let batchSize = given == nil ? 1_000 : 50
        var random = SplitMix64(seed: UInt64(from))
        for start in stride(from: from, to: to, by: batchSize) {
            let range = start..<min(start + batchSize, to)
            let ids = range.map { _ in UUID() }
            var documentValues: [SQLValue] = []
            var memberValues: [SQLValue] = []
            for (index, id) in zip(range, ids) {
                let changed = 1_760_000_000 + Double.random(in: 0..<31_536_000, using: &random)
                documentValues += [
                    .uuid(id), .text("Document \(index)"), .text(SearchFolding.fold("Document \(index)")), .integer(0),
                    .integer(0), .blob(snapshot), .integer(0), .real(changed), .real(changed),
                ]
                memberValues += [.uuid(id), .uuid(owners[index % owners.count])]
            }
            try await database.write([
                SQLStatement(
                    "INSERT INTO document (id, title, title_key, emoji_count, version, snapshot, snapshot_version, created_at, updated_at) VALUES "
                        + ids.map { _ in "(?, ?, ?, ?, ?, ?, ?, ?, ?)" }.joined(separator: ", "), documentValues),
                SQLStatement(
                    "INSERT INTO document_member (document_id, user_id, role) VALUES "
                        + ids.map { _ in "(?, ?, 'owner')" }.joined(separator: ", "), memberValues),
            ])
        }
    }
}
