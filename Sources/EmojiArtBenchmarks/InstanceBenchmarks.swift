import AsyncHTTPClient
import EmojiArtServer
import EmojiArtStore
import EmojiArtStorePostgres
import EmojiArtTestSupport
import Foundation
import Logging

/// `emojiart-bench instances`: two servers on one PostgreSQL database (a fresh database on
/// `$EMOJIART_TEST_POSTGRES`; scripts/benchmark starts a throwaway cluster). Live windows on
/// each document are split between the servers, and every window sends moves at a steady rate,
/// so both servers write to the same documents at once (the worst case: no sticky routing).
/// Reported: edits/s acknowledged, and the delivery latency from an edit being sent through one
/// server to its change arriving at a window on the other (LISTEN/NOTIFY, then the catch-up
/// read). Both servers, PostgreSQL and the windows share the machine's 2 cores.
enum InstanceBenchmarks {
    struct Scenario {
        var name: String
        var documents: Int
        var windowsPerDocument: Int
    }

    static func run(smoke: Bool, into report: inout Report) async throws {
        guard TestPostgres.url != nil else {
            throw BenchmarkError("set $EMOJIART_TEST_POSTGRES to a PostgreSQL server (scripts/benchmark starts one)")
        }
        let scenarios = [
            Scenario(name: "1 document", documents: 1, windowsPerDocument: 10),
            Scenario(name: "10 documents", documents: 10, windowsPerDocument: 4),
        ]
        let rates = smoke ? [100] : [100, 250, 500, 1_000, 2_000]
        let duration: Duration = smoke ? .milliseconds(500) : .seconds(5)
        for scenario in scenarios {
            let steps = try await withTwoServers { baseA, baseB in
                try await measure(scenario, bases: [baseA, baseB], rates: rates, duration: duration, smoke: smoke)
            }
            for step in steps {
                report.add(
                    "2 servers, \(scenario.name), \(scenario.documents * scenario.windowsPerDocument) windows, offered \(step.rate) edits/s",
                    "\(format(step.result.editsPerSecond, 0)) edits/s acknowledged; to the other server's windows p50 \(format(step.result.p50 * 1000)) ms, p99 \(format(step.result.p99 * 1000)) ms (rounds: \(step.p99s.map { format($0 * 1000) }.joined(separator: ", ")) ms)"
                )
            }
        }
    }

    /// Two servers on a fresh PostgreSQL database (on `$EMOJIART_TEST_POSTGRES`), in this
    /// process; `body` gets their base URLs.
    static func withTwoServers<T: Sendable>(_ body: @escaping @Sendable (String, String) async throws -> T)
        async throws -> T
    {
        guard TestPostgres.url != nil else {
            throw BenchmarkError("set $EMOJIART_TEST_POSTGRES to a PostgreSQL server (scripts/benchmark starts one)")
        }
        let database = try await TestPostgres.freshDatabase()
        var configuration = ServerConfiguration()
        configuration.port = 0
        configuration.databaseURL = database.description + "?sslmode=disable"
        configuration.databaseDriver = .postgreSQL
        configuration.fetchPolicy.allowsPublicAddresses = false
        configuration.liftSharedLiveLimits()
        var quiet = Logger(label: "bench")
        quiet.logLevel = .error
        let storeA = try await PostgreSQLDatabase.open(database, logger: quiet)
        let storeB = try await PostgreSQLDatabase.open(database, logger: quiet)
        defer {
            storeA.close()
            storeB.close()
        }
        let shared = configuration
        let storesA = Stores(database: storeA)
        let storesB = Stores(database: storeB)
        return try await ServerBenchmarks.withServer(shared, stores: storesA) { baseA in
            try await ServerBenchmarks.withServer(shared, stores: storesB) { baseB in try await body(baseA, baseB) }
        }
    }

    static func measure(
        _ scenario: Scenario, bases: [String], rates: [Int], duration: Duration, smoke: Bool
    ) async throws -> [LiveBenchmarks.Step] {
        let ports = try bases.map { try require(URL(string: $0)?.port) }
        var ids: [String] = []
        for _ in 0..<scenario.documents {
            ids.append(try await ServerBenchmarks.createDocument(bases[0], client: .shared))
        }
        let recorder = DeliveryRecorder()
        var windows: [LiveBenchmarkWindow] = []
        for (documentIndex, id) in ids.enumerated() {
            for _ in 0..<scenario.windowsPerDocument {
                // Alternate windows between the servers: window i is on server i % 2.
                windows.append(
                    LiveBenchmarkWindow(
                        index: windows.count, document: documentIndex, port: ports[windows.count % 2], id: id,
                        recorder: recorder))
            }
        }
        defer { for window in windows { window.finish() } }
        try await recorder.waitForSnapshots(windows.count)
        // Only deliveries to a window on the other server count.
        return try await LiveBenchmarks.stepUp(rates: rates, rounds: smoke ? 1 : 3, until: 0.100) { rate in
            try await LiveBenchmarks.measure(
                rate: rate, for: duration, windows: windows, recorder: recorder,
                counts: { sender, receiver in sender % 2 != receiver % 2 })
        }
    }
}
