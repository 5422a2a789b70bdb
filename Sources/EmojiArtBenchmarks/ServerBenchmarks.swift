import AsyncHTTPClient
import EmojiArtKit
import EmojiArtLive
import EmojiArtServer
import EmojiArtStore
import EmojiArtStoreSQLite
import Foundation
import Hummingbird
import NIOCore

/// `emojiart-bench server`: the real server on loopback, driven over HTTP.
///
/// - Acknowledged, durable edits per second through `POST /api/documents/{id}/edits` on one
///   document, with 1 and 8 concurrent clients (each sends its next edit when the last is
///   acknowledged), and the latency of each edit (p50/p99).
/// - Cold open: a 10,000-emoji document opened by a server started fresh on its database.
enum ServerBenchmarks {
    static func run(smoke: Bool, into report: inout Report) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "emojiart-bench-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let client = HTTPClient.shared
        let duration: Duration = smoke ? .milliseconds(300) : .seconds(5)

        for durability in SQLiteDatabase.Durability.allCases {
            var configuration = ServerConfiguration()
            configuration.port = 0
            configuration.durability = durability
            configuration.dataDirectory = folder.appendingPathComponent(durability.rawValue).path
            configuration.fetchPolicy.allowsPublicAddresses = false
            let results = try await withServer(configuration) { base in
                let id = try await createDocument(base, client: client)
                var results: [(Int, LoadResult)] = []
                for clients in [1, 8] {
                    results.append(
                        (
                            clients,
                            try await measureEdits(base, document: id, clients: clients, for: duration, client: client)
                        ))
                }
                return results
            }
            for (clients, result) in results {
                report.add(
                    "edits, \(clients) client\(clients == 1 ? "" : "s"), durability \(durability.rawValue)",
                    "\(format(result.perSecond, 0)) edits/s, p50 \(format(result.p50 * 1000)) ms, p99 \(format(result.p99 * 1000)) ms",
                    target: clients == 8 && durability == .full ? "≥ 5,000 edits/s, p99 ≤ 20 ms" : "")
            }
        }

        // Cold open: store a 10,000-emoji document, then time its first open on a new server.
        var configuration = ServerConfiguration()
        configuration.port = 0
        configuration.dataDirectory = folder.appendingPathComponent("cold").path
        // The generated document's background URL must never be fetched from here.
        configuration.fetchPolicy.allowsPublicAddresses = false
        let big = try generatedDocument(count: smoke ? 100 : 10_000)
        try FileManager.default.createDirectory(
            atPath: try require(configuration.dataDirectory), withIntermediateDirectories: true)
        let store = try Stores.sqlite(path: try require(configuration.databasePath)).documents
        let id = UUID()
        try await store.createDocument(
            StoredDocument(id: id, document: big, version: 0, createdAt: Date(), updatedAt: Date()), owner: LocalUser.id
        )
        var libraryTimes: [Double] = []
        for _ in 0..<(smoke ? 2 : 10) {
            let library = DocumentLibrary(
                store: try Stores.sqlite(path: try require(configuration.databasePath)).documents)
            let start = ContinuousClock.now
            _ = try await library.withDocument(id) { try await $0.state().version }
            libraryTimes.append(seconds(ContinuousClock.now - start))
        }
        // The same document with the longest log a document carries before it is folded (the
        // retained 2,000 entries plus a compaction batch of 1,000): opening replays it all to
        // restore the undo history and the request ids.
        let tailID = UUID()
        try await store.createDocument(
            StoredDocument(id: tailID, document: big, version: 0, createdAt: Date(), updatedAt: Date()),
            owner: LocalUser.id)
        let settings = DocumentLibrary.Settings()
        let tailLength = smoke ? 100 : settings.retainedLog + settings.compactionBatch
        let ids = Array(big.emojis.prefix(20).map(\.id))
        for first in stride(from: 1, through: tailLength, by: 100) {
            let entries = (first..<min(first + 100, tailLength + 1)).map { version in
                LogEntry(
                    version: version, edits: [.moveEmojis(ids: [ids[version % ids.count]], offset: Point(x: 1, y: 0))],
                    date: Date(), step: .perform(gesture: nil), requestID: "bench-\(version)")
            }
            try await store.append(
                entries, to: tailID,
                summary: DocumentSummary(
                    id: tailID, title: big.title, emojiCount: big.emojis.count, version: entries.last?.version ?? 0,
                    createdAt: Date(), updatedAt: Date()))
        }
        var tailTimes: [Double] = []
        for _ in 0..<(smoke ? 2 : 10) {
            let library = DocumentLibrary(
                store: try Stores.sqlite(path: try require(configuration.databasePath)).documents)
            let start = ContinuousClock.now
            _ = try await library.withDocument(tailID) { try await $0.state().version }
            tailTimes.append(seconds(ContinuousClock.now - start))
        }
        report.add(
            "cold open, \(big.emojis.count) emojis + \(tailLength) log entries replayed (history and request ids)",
            "\(format(median(tailTimes) * 1000)) ms (median of \(tailTimes.count))", target: "≤ 100 ms")
        var httpTimes: [Double] = []
        for _ in 0..<(smoke ? 2 : 5) {
            httpTimes.append(
                try await withServer(configuration) { base in
                    let start = ContinuousClock.now
                    let response = try await client.execute(
                        HTTPClientRequest(url: "\(base)api/documents/\(id)"), timeout: .seconds(30))
                    _ = try await response.body.collect(upTo: 64 * 1024 * 1024)
                    guard response.status == .ok else { throw BenchmarkError("cold open answered \(response.status)") }
                    return seconds(ContinuousClock.now - start)
                })
        }
        report.add(
            "cold open, \(big.emojis.count) emojis, new library on the database",
            "\(format(median(libraryTimes) * 1000)) ms (median of \(libraryTimes.count))", target: "≤ 100 ms")
        report.add(
            "cold open, \(big.emojis.count) emojis, first GET on a fresh server",
            "\(format(median(httpTimes) * 1000)) ms (median of \(httpTimes.count), includes the JSON response)")
    }

    static func measureEdits(
        _ base: String, document: String, clients: Int, for duration: Duration, client: HTTPClient
    ) async throws -> LoadResult {
        let body = #"{"baseVersion":0,"edit":{"type":"moveEmojis","ids":[1],"offset":{"x":1,"y":-1}}}"#
        return try await measureClosedLoop(clients: clients, for: duration) {
            var request = HTTPClientRequest(url: "\(base)api/documents/\(document)/edits")
            request.method = .POST
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(string: body))
            let response = try await client.execute(request, timeout: .seconds(10))
            _ = try await response.body.collect(upTo: 1024 * 1024)
            guard response.status == .ok else { throw BenchmarkError("edit answered \(response.status)") }
        }
    }

    static func createDocument(_ base: String, client: HTTPClient) async throws -> String {
        var request = HTTPClientRequest(url: "\(base)api/documents")
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(ByteBuffer(string: #"{"title":"Benchmark"}"#))
        let created = try await client.execute(request, timeout: .seconds(10))
        let body = try await created.body.collect(upTo: 1024 * 1024)
        let json = try JSONSerialization.jsonObject(with: Data(body.readableBytesView)) as? [String: Any]
        guard let id = json?["id"] as? String else { throw BenchmarkError("could not create a document") }
        var add = HTTPClientRequest(url: "\(base)api/documents/\(id)/edits")
        add.method = .POST
        add.headers.add(name: "Content-Type", value: "application/json")
        add.body = .bytes(
            ByteBuffer(
                string: #"{"baseVersion":0,"edit":{"type":"addEmoji","text":"🚚","position":{"x":0,"y":0},"size":40}}"#))
        _ = try await client.execute(add, timeout: .seconds(10)).body.collect(upTo: 1024 * 1024)
        return id
    }

    /// Runs a server for the duration of `body`, passing its base URL.
    static func withServer<T: Sendable>(
        _ configuration: ServerConfiguration, stores: Stores? = nil,
        _ body: @escaping @Sendable (String) async throws -> T
    ) async throws -> T {
        let (urls, continuation) = AsyncStream.makeStream(of: String.self)
        let app = try await buildApplication(configuration, stores: stores) { url in continuation.yield(url) }
        return try await whileServing(app, urls: urls, body)
    }

    static func median(_ values: [Double]) -> Double {
        values.sorted()[values.count / 2]
    }
}

func require<T>(_ value: T?) throws -> T {
    guard let value else { throw BenchmarkError("a required value was missing") }
    return value
}
