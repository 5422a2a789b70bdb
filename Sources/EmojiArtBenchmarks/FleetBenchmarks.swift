import AsyncHTTPClient
import EmojiArtServer
import EmojiArtStorePostgres
import EmojiArtTestSupport
import Foundation
import PostgresNIO
import Synchronization

/// `emojiart-bench fleet` (issue #39): three `emojiart serve` processes on one PostgreSQL database
/// behind nginx running docs/nginx/emojiart.conf, every window and edit through nginx, all on this
/// machine (``Fleet``):
///
/// - **one hot document**: 3,000 windows, 30 of which send 100 moves a second in all; the
///   delivery latency to every window, every change delivered, in version order. Measured with
///   the windows spread over the instances (`least_conn`, as the configuration suggests for such
///   a document) and as shipped (a document's windows on one instance);
/// - **300 documents × 10 windows**, one window of each sending, 1,000 moves a second in all
///   (as shipped): how soon each is acknowledged;
/// - **the most edits one document takes**, 12 windows sending ever faster: through the three
///   instances at once (spread) and through one (as shipped).
///
/// Every figure comes with each instance's CPU, nginx's, the machine's, and the most PostgreSQL
/// connections the database had. `--smoke` runs it small (the test suite does) and fails unless
/// every change reached every window in order.
enum FleetBenchmarks {
    struct Sizes {
        var instances = 3
        /// The hot document's crowds, measured in turn.
        var hotCrowds = [200, 500, 1_000, 2_000, 3_000]
        var hotSenders = 30
        var hotRate = 100
        var documents = 300
        var windowsPerDocument = 10
        var manyRates = [250, 500, 1_000]
        var duration: Duration = .seconds(10)
        var maxSenders = 12
        var maxRates = [250, 500, 1_000, 2_000, 4_000]
        var maxDuration: Duration = .seconds(5)
        var poolSize = 16
        /// The failover: how long the hot document's edits go on, and when an instance is killed.
        var failoverDuration: Duration = .seconds(15)
        var killAfter: Duration = .seconds(5)
        /// How long the faults' windows may take to have every answer and every change.
        var faultTimeout: Duration = .seconds(60)

        static let smoke = Sizes(
            hotCrowds: [30], hotSenders: 3, hotRate: 30, documents: 6, windowsPerDocument: 3, manyRates: [30],
            duration: .seconds(1), maxSenders: 3, maxRates: [60], maxDuration: .seconds(1), poolSize: 4,
            failoverDuration: .seconds(4), killAfter: .seconds(1), faultTimeout: .seconds(20))

        /// Only the many documents' runs (`EMOJIART_BENCH_FLEET_ONLY=documents`), to measure
        /// the commit path alone.
        var onlyDocuments = false
        /// Only the faults — an instance killed, PostgreSQL stopped — under the first hot crowd
        /// (`EMOJIART_BENCH_FLEET_ONLY=faults`).
        var onlyFaults = false

        /// `EMOJIART_BENCH_FLEET=WINDOWS,DOCUMENTS` picks other crowds: one hot document's windows
        /// and the number of 10-window documents; `EMOJIART_BENCH_FLEET_ONLY=documents` runs the
        /// many documents alone, `=faults` the faults alone (with 200 windows unless given).
        static func fromEnvironment(smoke: Bool) -> Sizes {
            var sizes = smoke ? Sizes.smoke : Sizes()
            switch ProcessInfo.processInfo.environment["EMOJIART_BENCH_FLEET_ONLY"] {
            case "documents":
                sizes.onlyDocuments = true
                sizes.hotCrowds = []
            case "faults":
                sizes.onlyFaults = true
                sizes.hotCrowds = [smoke ? sizes.hotCrowds[0] : 200]
            default: break
            }
            let given = ProcessInfo.processInfo.environment["EMOJIART_BENCH_FLEET"]?.split(separator: ",")
                .compactMap { Int($0) }
            if let given, given.count == 2 {
                sizes.hotCrowds = [given[0]]
                sizes.documents = given[1]
            }
            return sizes
        }
    }

    static func run(smoke: Bool, into report: inout Report) async throws {
        guard TestPostgres.url != nil else {
            throw BenchmarkError("set $EMOJIART_TEST_POSTGRES to a PostgreSQL server (scripts/benchmark starts one)")
        }
        OpenFileLimit.raise()
        let sizes = Sizes.fromEnvironment(smoke: smoke)
        let folder = benchmarkFolder("fleet")
        // `EMOJIART_BENCH_KEEP=1` keeps the instances' and nginx's logs (the folder is printed).
        let keep = ProcessInfo.processInfo.environment["EMOJIART_BENCH_KEEP"] == "1"
        if keep { print("logs in \(folder.path)") }
        defer { if !keep { try? FileManager.default.removeItem(at: folder) } }
        let routings: [Fleet.Routing] =
            sizes.onlyDocuments ? [.sticky] : sizes.onlyFaults ? [.spread] : [.spread, .sticky]
        for routing in routings {
            let database = try await TestPostgres.freshDatabase()
            let url = try databaseURL(database)
            let fleet = try await Fleet(
                count: sizes.instances, database: url, poolSize: sizes.poolSize, routing: routing,
                folder: folder.appendingPathComponent(routing.rawValue))
            defer { fleet.stop() }
            let connections = PostgresConnectionCount(database)
            defer { connections.stop() }
            // The hot document's crowd grows until its delivery p99 passes a second.
            var hot: [Outcome] = []
            for crowd in sizes.hotCrowds where !sizes.onlyFaults {
                let outcome = try await hotDocument(fleet, windows: crowd, sizes: sizes, connections: connections)
                hot.append(outcome)
                try await Task.sleep(for: .seconds(1))  // the last crowd's windows close
                report.add(
                    "fleet (\(routing)): 1 document, \(crowd) windows, \(sizes.hotRate) moves/s",
                    "delivery p50 \(format(outcome.delivery.p50 * 1000)) ms, p99 \(format(outcome.delivery.p99 * 1000)) ms, \(format(outcome.delivered * 100, 2))% delivered, \(outcome.outOfOrder) out of order; \(outcome.usage)",
                    target: routing == .spread && crowd == 3_000 ? "p99 ≤ 150 ms, 100% delivered, in order" : "")
                if outcome.delivery.p99 > 1 { break }
            }
            var many: [Outcome] = []
            if routing == .sticky {
                for rate in sizes.manyRates {
                    let outcome = try await manyDocuments(fleet, rate: rate, sizes: sizes, connections: connections)
                    many.append(outcome)
                    try await Task.sleep(for: .seconds(1))
                    report.add(
                        "fleet (\(routing)): \(sizes.documents) documents × \(sizes.windowsPerDocument) windows, \(rate) moves/s",
                        "\(format(outcome.acknowledgedPerSecond, 0)) acked/s, ack p50 \(format(outcome.acknowledgement.p50 * 1000)) ms, p99 \(format(outcome.acknowledgement.p99 * 1000)) ms; delivery p99 \(format(outcome.delivery.p99 * 1000)) ms, \(format(outcome.delivered * 100, 2))% delivered, \(outcome.outOfOrder) out of order; \(outcome.usage)",
                        target: rate == 1_000 ? "ack p99 ≤ 50 ms" : "")
                    if outcome.acknowledgement.p99 > 1 { break }
                }
            }
            if sizes.onlyDocuments { continue }
            // The documents closed meanwhile are folded and unloaded (the maintenance, every
            // second): let that settle, so the next figures are the next load's alone.
            try await Task.sleep(for: smoke ? .milliseconds(200) : .seconds(5))
            let steps = sizes.onlyFaults ? [] : try await mostEdits(fleet, sizes: sizes, connections: connections)
            let through = routing == .spread ? "through \(sizes.instances) instances" : "through 1 instance"
            for step in steps {
                report.add(
                    "fleet: 1 document \(through), \(sizes.maxSenders) windows, offered \(step.rate) moves/s",
                    "\(format(step.acknowledgedPerSecond, 0)) acked/s, ack p50 \(format(step.acknowledgement.p50 * 1000)) ms, p99 \(format(step.acknowledgement.p99 * 1000)) ms; \(step.usage)"
                )
            }
            if smoke {
                for result in hot + many + steps where result.delivered < 1 || result.outOfOrder > 0 {
                    throw BenchmarkError(
                        "\(routing): \(format(result.delivered * 100, 2))% delivered, \(result.outOfOrder) out of order"
                    )
                }
            }
            if routing == .spread {
                // An instance killed under the largest crowd that kept delivery p99 ≤ 150 ms.
                let crowd =
                    Array(zip(sizes.hotCrowds, hot)).last { $0.1.delivery.p99 <= 0.150 }?.0 ?? sizes.hotCrowds[0]
                let lost = try await failover(fleet, windows: crowd, sizes: sizes, connections: connections)
                report.add(
                    "fleet (spread): kill -9 of 1 instance of \(sizes.instances), \(crowd) windows, \(sizes.hotRate) moves/s",
                    "\(lost.dropped) windows dropped, all back in ≤ \(format(lost.slowestReturn, 2)) s (p50 \(format(lost.medianReturn, 2)) s); \(lost.sent) sent, \(lost.acknowledged) acknowledged, \(lost.applied) applied; the others' delivery p99 \(format(lost.othersP99 * 1000)) ms in the \(lost.failoverSeconds) s after the kill; \(format(lost.delivered * 100, 2))% delivered, \(lost.outOfOrder) out of order; restarted, it took \(lost.retaken) of \(lost.newWindows) new windows; \(lost.usage)",
                    target: "back ≤ 5 s, each edit once, others' p99 ≤ 250 ms")
                if smoke, !lost.passed {
                    throw BenchmarkError("the failover lost or doubled edits, or windows did not come back: \(lost)")
                }
                if let restart = try await databaseRestart(fleet, windows: crowd, sizes: sizes) {
                    report.add(
                        "fleet (spread): PostgreSQL stopped for \(format(restart.outage, 0)) s, \(crowd) windows, \(sizes.hotRate) moves/s",
                        restart.description, target: "503 meanwhile, recovers by itself, each edit once")
                    if smoke, !restart.passed {
                        throw BenchmarkError(
                            "the database restart lost or doubled edits, or an instance did not recover: \(restart)")
                    }
                } else {
                    report.add(
                        "fleet: PostgreSQL stopped under load",
                        "skipped: $EMOJIART_TEST_POSTGRES_DATA names no cluster to stop")
                }
            }
        }
    }

    /// What one measurement found.
    struct Outcome {
        var rate: Int
        var acknowledgedPerSecond: Double
        var acknowledgement: (p50: Double, p99: Double)
        var delivery: DeliveryResult
        /// Arrivals over what every acknowledged edit owed its document's windows.
        var delivered: Double
        var outOfOrder: Int
        var usage: Usage
    }

    static func hotDocument(_ fleet: Fleet, windows: Int, sizes: Sizes, connections: PostgresConnectionCount)
        async throws -> Outcome
    {
        let id = try await ServerBenchmarks.createDocument(fleet.front, client: .shared)
        let recorder = DeliveryRecorder()
        let senders = try await openSenders(sizes.hotSenders, on: [id], fleet: fleet, recorder: recorder)
        defer { for sender in senders { sender.finish() } }
        let followers = CrowdFollowers(
            windows: Array(repeating: (try require(UUID(uuidString: id)), 0), count: windows - senders.count),
            first: senders.count, port: fleet.frontPort, recorder: recorder)
        defer { followers.stop() }
        try await recorder.waitForSnapshots(windows, timeout: .seconds(120))
        return try await measure(
            rate: sizes.hotRate, for: sizes.duration, senders: senders, windowsPerDocument: windows,
            fleet: fleet, recorder: recorder, connections: connections)
    }

    static func manyDocuments(_ fleet: Fleet, rate: Int, sizes: Sizes, connections: PostgresConnectionCount)
        async throws -> Outcome
    {
        var ids: [String] = []
        for _ in 0..<sizes.documents {
            ids.append(try await ServerBenchmarks.createDocument(fleet.front, client: .shared))
        }
        let recorder = DeliveryRecorder()
        let senders = try await openSenders(sizes.documents, on: ids, fleet: fleet, recorder: recorder)
        defer { for sender in senders { sender.finish() } }
        var windows: [(id: UUID, document: Int)] = []
        for (document, id) in ids.enumerated() {
            let uuid = try require(UUID(uuidString: id))
            windows += Array(repeating: (uuid, document), count: sizes.windowsPerDocument - 1)
        }
        let followers = CrowdFollowers(
            windows: windows, first: senders.count, port: fleet.frontPort, recorder: recorder)
        defer { followers.stop() }
        try await recorder.waitForSnapshots(sizes.documents * sizes.windowsPerDocument, timeout: .seconds(120))
        return try await measure(
            rate: rate, for: sizes.duration, senders: senders, windowsPerDocument: sizes.windowsPerDocument,
            fleet: fleet, recorder: recorder, connections: connections)
    }

    /// One document, `maxSenders` windows sending at each rate in turn until acknowledgements'
    /// p99 passes 100 ms or fewer than 90% of the offered edits are acknowledged.
    static func mostEdits(_ fleet: Fleet, sizes: Sizes, connections: PostgresConnectionCount) async throws
        -> [Outcome]
    {
        let id = try await ServerBenchmarks.createDocument(fleet.front, client: .shared)
        let recorder = DeliveryRecorder()
        let senders = try await openSenders(sizes.maxSenders, on: [id], fleet: fleet, recorder: recorder)
        defer { for sender in senders { sender.finish() } }
        var outcomes: [Outcome] = []
        for rate in sizes.maxRates {
            let outcome = try await measure(
                rate: rate, for: sizes.maxDuration, senders: senders, windowsPerDocument: senders.count,
                fleet: fleet, recorder: recorder, connections: connections)
            outcomes.append(outcome)
            if outcome.acknowledgement.p99 > 0.100 || outcome.acknowledgedPerSecond < Double(rate) * 0.9 { break }
        }
        return outcomes
    }

    /// The document's version: the newest any running instance has. (One asked through nginx
    /// may not have heard yet of the last edit another committed a moment ago.)
    static func documentVersion(_ id: String, in fleet: Fleet) async throws -> Int {
        var newest: Int?
        for instance in fleet.instances {
            if let version = try? await documentVersion(id, base: instance.base) {
                newest = max(newest ?? version, version)
            }
        }
        guard let newest else { throw BenchmarkError("no instance could read document \(id)") }
        return newest
    }

    /// The document's version, read through `base`.
    static func documentVersion(_ id: String, base: String) async throws -> Int {
        let response = try await HTTPClient.shared.execute(
            HTTPClientRequest(url: "\(base)api/documents/\(id)"), timeout: .seconds(10))
        let body = try await response.body.collect(upTo: 16 * 1024 * 1024)
        let json = try JSONSerialization.jsonObject(with: Data(body.readableBytesView)) as? [String: Any]
        guard response.status == .ok, let version = json?["version"] as? Int else {
            throw BenchmarkError("could not read document \(id): \(response.status)")
        }
        return version
    }

    /// `count` sending windows through nginx, the i-th on `ids[i % ids.count]`, opened one after
    /// another so that `least_conn` deals them out in turn.
    static func openSenders(
        _ count: Int, on ids: [String], fleet: Fleet, recorder: DeliveryRecorder, reconnects: Bool = false
    ) async throws -> [LiveBenchmarkWindow] {
        var senders: [LiveBenchmarkWindow] = []
        for index in 0..<count {
            senders.append(
                LiveBenchmarkWindow(
                    index: index, document: index % ids.count, port: fleet.frontPort, id: ids[index % ids.count],
                    recorder: recorder, reconnects: reconnects))
            if ids.count == 1 { try await recorder.waitForSnapshots(index + 1) }
        }
        try await recorder.waitForSnapshots(count, timeout: .seconds(60))
        return senders
    }

    /// Sends `rate` moves a second from `senders` for `duration`, then waits for every answer
    /// and every change to reach every window.
    static func measure(
        rate: Int, for duration: Duration, senders: [LiveBenchmarkWindow], windowsPerDocument: Int, fleet: Fleet,
        recorder: DeliveryRecorder, connections: PostgresConnectionCount
    ) async throws -> Outcome {
        recorder.reset()
        let meter = try await UsageMeter(fleet, connections: connections)
        let sendingTime = await LiveBenchmarks.sendMoves(rate: rate, for: duration, from: senders)
        let usage = try await meter.finish()
        try await recorder.waitForAnswers(timeout: .seconds(30))
        let (acknowledged, _) = recorder.deliveredEdits
        let owed = acknowledged.values.reduce(0, +) * windowsPerDocument
        try await recorder.waitForArrivals(owed, timeout: .seconds(30))
        let arrivals = recorder.deliveredEdits.arrivals.values.reduce(0, +)
        let acknowledgement = recorder.acknowledgements
        return Outcome(
            rate: rate, acknowledgedPerSecond: Double(acknowledgement.count) / sendingTime,
            acknowledgement: (acknowledgement.p50, acknowledgement.p99),
            delivery: recorder.result(sendingTime: sendingTime, otherWindows: windowsPerDocument - 1),
            delivered: owed == 0 ? 0 : Double(arrivals) / Double(owed), outOfOrder: recorder.outOfOrderArrivals,
            usage: usage)
    }

    static func databaseURL(_ database: PostgreSQLDatabase.Connection) throws -> String {
        guard let base = TestPostgres.url, var components = URLComponents(string: base) else {
            throw BenchmarkError("$EMOJIART_TEST_POSTGRES is not a URL")
        }
        components.path = "/" + database.database
        components.query = nil
        return try require(components.string)
    }
}

/// CPU seconds so far of each part of the fleet; as a rate (one core is 1), what a measurement used.
struct CPUSample {
    var instances: [Double]
    var nginx: Double
    var postgres: Double
    /// This benchmark's windows.
    var windows: Double
    var machine: Double

    init(_ fleet: Fleet) {
        instances = fleet.instances.map(\.cpuSeconds)
        nginx = fleet.nginxCPUSeconds
        postgres = cpuSeconds(ofProcessesNamed: "postgres")
        windows = processCPUSeconds(getpid())
        machine = machineBusySeconds()
    }

    /// The CPU used from `earlier` to this sample, per second of `elapsed`.
    func rate(since earlier: CPUSample, over elapsed: Double) -> CPUSample {
        var rate = self
        rate.instances = zip(instances, earlier.instances).map { ($0 - $1) / elapsed }
        rate.nginx = (nginx - earlier.nginx) / elapsed
        rate.postgres = (postgres - earlier.postgres) / elapsed
        rate.windows = (windows - earlier.windows) / elapsed
        rate.machine = (machine - earlier.machine) / elapsed
        return rate
    }
}

/// What the fleet used while a measurement ran: CPU and PostgreSQL connections.
struct Usage: CustomStringConvertible {
    var cpu: CPUSample
    var windows: [Int]
    var connections: Int

    var description: String {
        let percents = cpu.instances.map { "\(format($0 * 100, 0))%" }.joined(separator: "/")
        return
            "CPU per instance \(percents), nginx \(format(cpu.nginx * 100, 0))%, PostgreSQL \(format(cpu.postgres * 100, 0))%, the windows \(format(cpu.windows * 100, 0))%, machine \(format(cpu.machine * 100, 0))% of \(ProcessInfo.processInfo.activeProcessorCount * 100)%; windows per instance \(windows.map(String.init).joined(separator: "/")); PostgreSQL connections ≤ \(connections)"
    }
}

/// Measures ``Usage`` from its start to ``finish()``.
struct UsageMeter {
    let fleet: Fleet
    let connections: PostgresConnectionCount
    let start = ContinuousClock.now
    let cpu: CPUSample
    let windows: [Int]

    init(_ fleet: Fleet, connections: PostgresConnectionCount) async throws {
        self.fleet = fleet
        self.connections = connections
        var windows: [Int] = []
        for instance in fleet.instances { windows.append((try? await instance.liveWindows()) ?? 0) }
        self.windows = windows
        connections.resetPeak()
        cpu = CPUSample(fleet)
    }

    func finish() async throws -> Usage {
        Usage(
            cpu: CPUSample(fleet).rate(since: cpu, over: seconds(ContinuousClock.now - start)), windows: windows,
            connections: connections.peak)
    }
}

/// Counts the connections to one database every 100 ms (`pg_stat_activity`), keeping the peak.
final class PostgresConnectionCount: Sendable {
    private let client: PostgresClient
    private let database: String
    private let counted = Mutex((peak: 0, last: 0))
    private let task = Mutex<Task<Void, Never>?>(nil)

    init(_ database: PostgreSQLDatabase.Connection) {
        client = PostgresClient(
            configuration: .init(
                host: database.host, port: database.port, username: database.username, password: database.password,
                database: database.database, tls: .disable))
        self.database = database.database
        task.withLock { $0 = Task { await self.count() } }
    }

    private func count() async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.client.run() }
            while !Task.isCancelled {
                if let rows = try? await client.query(
                    "SELECT count(*)::int FROM pg_stat_activity WHERE datname = \(database)"),
                    let count = try? await rows.collect().first?.decode(Int.self)
                {
                    // Less this counter's own connection.
                    counted.withLock { $0 = (max($0.peak, count - 1), count - 1) }
                }
                try? await Task.sleep(for: .milliseconds(100))
            }
            group.cancelAll()
        }
    }

    var peak: Int { counted.withLock { $0.peak } }

    func resetPeak() { counted.withLock { $0.peak = $0.last } }

    func stop() { task.withLock { $0?.cancel() } }
}
