import EmojiArtKit
import EmojiArtStore
import EmojiArtStorePostgres
import EmojiArtStoreSQLite
import Foundation
import Logging

/// `emojiart-bench history`: a document with 100,000 versions (single-emoji moves, as a drag
/// makes them) on SQLite, and on PostgreSQL when `$EMOJIART_TEST_POSTGRES` names one
/// (scripts/benchmark starts a throwaway cluster):
/// - reading a past version (the checkpoint before it plus at most 500 entries folded), over
///   random versions: median, p95 and the slowest;
/// - the first page of `GET /history` (100 versions with their sessions);
/// - bytes each move edit costs in the database, log row and index included, and what the
///   checkpoints add per version.
enum HistoryBenchmarks {
    static func run(smoke: Bool, into report: inout Report) async throws {
        let versions = smoke ? 1_200 : 100_000
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "emojiart-bench-history-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let sqlite = try SQLiteDatabase(path: folder.appendingPathComponent("history.sqlite").path)
        try await measure(
            SQLDocumentStore(database: sqlite), label: "SQLite", versions: versions, smoke: smoke,
            size: { try await sqliteBytes(sqlite) },
            into: &report)
        if let url = ProcessInfo.processInfo.environment["EMOJIART_TEST_POSTGRES"], !url.isEmpty {
            var logger = Logger(label: "bench")
            logger.logLevel = .error
            let postgres = try await PostgreSQLDatabase.open(try .init(url: url), logger: logger)
            defer { postgres.close() }
            try await measure(
                SQLDocumentStore(database: postgres), label: "PostgreSQL", versions: versions, smoke: smoke,
                size: { try await postgresBytes(postgres) }, into: &report)
        } else if !smoke {
            print("(set $EMOJIART_TEST_POSTGRES for the PostgreSQL figures; scripts/benchmark history does)")
        }
    }

    /// The bytes the history tables take: (log, checkpoints).
    typealias Sizes = (log: Int, checkpoints: Int)

    static func measure(
        _ store: any DocumentStore, label: String, versions: Int, smoke: Bool,
        size: () async throws -> Sizes, into report: inout Report
    ) async throws {
        let document = try generatedDocument(count: 200)
        let id = UUID()
        let created = Date(timeIntervalSince1970: 1_790_000_000)
        try await store.createDocument(
            StoredDocument(id: id, document: document, version: 0, createdAt: created, updatedAt: created),
            owner: LocalUser.id)
        let before = try await size()
        var random = SplitMix64(seed: 19)
        let ids = document.emojis.ids
        let author = UUID()
        var expected = document
        var sample: [Int: EmojiArtDocument] = [:]
        let sampled = Set((0..<50).map { _ in Int.random(in: 1...versions, using: &random) })
        for first in stride(from: 1, through: versions, by: 1_000) {
            let entries = (first..<min(first + 1_000, versions + 1)).map { version in
                let edit = Edit.moveEmojis(
                    ids: [ids[version % ids.count]],
                    offset: Point(x: Int.random(in: -4...4, using: &random), y: Int.random(in: -4...4, using: &random)))
                try? expected.apply(edit)
                if sampled.contains(version) { sample[version] = expected }
                return LogEntry(
                    version: version, edits: [edit], date: created.addingTimeInterval(Double(version) * 0.05),
                    step: .perform(gesture: "drag-\(version / 40)"), requestID: "w\(version % 7)-\(version)",
                    author: author)
            }
            try await store.append(
                entries, to: id,
                summary: DocumentSummary(
                    id: id, title: document.title, emojiCount: ids.count, version: entries.last!.version,
                    createdAt: created, updatedAt: entries.last!.date))
        }
        let reader = HistoryReader(store: store)
        let afterLog = try await size()
        try await reader.writeCheckpoints(of: id, through: versions)
        let afterCheckpoints = try await size()

        var times: [Double] = []
        for version in sample.keys.sorted() {
            let start = ContinuousClock.now
            let read = try await reader.document(id: id, at: version)
            times.append(seconds(ContinuousClock.now - start))
            guard read?.document == sample[version] else { throw BenchmarkError("version \(version) read back wrong") }
        }
        times.sort()
        report.add(
            "\(label): read one of \(versions) versions (checkpoint every \(reader.checkpointInterval))",
            "median \(format(ServerBenchmarks.median(times) * 1000)) ms, p95 \(format(times[times.count * 95 / 100] * 1000)) ms, "
                + "max \(format(times.last! * 1000)) ms (\(times.count) versions)",
            target: "≤ 50 ms")
        var pageTimes: [Double] = []
        for _ in 0..<(smoke ? 2 : 10) {
            let start = ContinuousClock.now
            _ = try await reader.page(of: id, before: versions + 1, limit: 100)
            pageTimes.append(seconds(ContinuousClock.now - start))
        }
        report.add(
            "\(label): first page of history (100 versions, sessions whole)",
            "\(format(ServerBenchmarks.median(pageTimes) * 1000)) ms (median of \(pageTimes.count))")
        let perEdit = Double(afterLog.log - before.log) / Double(versions)
        let perCheckpoint = Double(afterCheckpoints.checkpoints - before.checkpoints) / Double(versions)
        report.add(
            "\(label): bytes per move edit (log row with its index)",
            "\(format(perEdit, 0)) bytes, + \(format(perCheckpoint, 0)) bytes/version for checkpoints (200 emojis)")
    }

    /// The pages SQLite's `dbstat` counts for the log and the checkpoints (the database as it
    /// reads, WAL included).
    static func sqliteBytes(_ database: SQLiteDatabase) async throws -> Sizes {
        let rows = try await database.read(
            SQLStatement("SELECT name, SUM(pgsize) FROM dbstat WHERE name IN ('edit_log', 'checkpoint') GROUP BY name"))
        var sizes: [String: Int] = [:]
        for row in rows { if case .text(let name) = row[0] { sizes[name] = row[1].int ?? 0 } }
        return (sizes["edit_log"] ?? 0, sizes["checkpoint"] ?? 0)
    }

    /// `pg_total_relation_size` (rows, indexes and TOAST) of the log and the checkpoints.
    static func postgresBytes(_ database: PostgreSQLDatabase) async throws -> Sizes {
        let rows = try await database.read(
            SQLStatement(
                "SELECT pg_total_relation_size('edit_log')::bigint, pg_total_relation_size('checkpoint')::bigint"))
        return (rows.first?[0].int ?? 0, rows.first?[1].int ?? 0)
    }
}
