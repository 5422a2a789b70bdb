import EmojiArtServer
import EmojiArtWire
import Foundation
import Hummingbird
import ServiceLifecycle

/// Runs `app` for the duration of `body`, passing the base URL it reports through `urls` once
/// it accepts connections; then shuts it down as SIGTERM would (drain, then clean up).
func whileServing<T: Sendable>(
    _ app: some ApplicationProtocol, urls: AsyncStream<String>, _ body: @escaping @Sendable (String) async throws -> T
) async throws -> T {
    let services = ServiceGroup(
        configuration: .init(services: [app], gracefulShutdownSignals: [], logger: app.logger))
    return try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask {
            try await services.run()
            return nil
        }
        var iterator = urls.makeAsyncIterator()
        guard let url = await iterator.next() else { throw BenchmarkError("the server did not start") }
        let result = try await body(url)
        await services.triggerGracefulShutdown()
        try await group.waitForAll()
        return result
    }
}

/// Throughput and latency of a closed-loop load.
struct LoadResult {
    var perSecond: Double
    var p50: Double
    var p99: Double
}

/// `clients` tasks each run `operation` back to back (the next when the last has finished)
/// until `duration` is over; every operation's time is a latency sample.
func measureClosedLoop(
    clients: Int, for duration: Duration, _ operation: @escaping @Sendable () async throws -> Void
) async throws -> LoadResult {
    let start = ContinuousClock.now
    let deadline = start + duration
    let latencies = try await withThrowingTaskGroup(of: [Double].self) { group in
        for _ in 0..<clients {
            group.addTask {
                var latencies: [Double] = []
                while ContinuousClock.now < deadline {
                    let sent = ContinuousClock.now
                    try await operation()
                    latencies.append(seconds(ContinuousClock.now - sent))
                }
                return latencies
            }
        }
        return try await group.reduce(into: []) { $0 += $1 }
    }
    let sorted = latencies.sorted()
    return LoadResult(
        perSecond: Double(sorted.count) / seconds(ContinuousClock.now - start),
        p50: percentile(sorted, 0.5), p99: percentile(sorted, 0.99))
}

/// The `fraction` percentile of ascending `sorted` values (0 when empty).
func percentile(_ sorted: [Double], _ fraction: Double) -> Double {
    guard !sorted.isEmpty else { return 0 }
    return sorted[min(sorted.count - 1, Int(Double(sorted.count) * fraction))]
}

func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) * 1e-18
}

/// A new folder's place in the temporary directory, for one benchmark's data (the caller
/// removes it).
func benchmarkFolder(_ name: String) -> URL {
    FileManager.default.temporaryDirectory.appendingPathComponent("emojiart-bench-\(name)-\(UUID().uuidString)")
}

extension ServerConfiguration {
    /// An in-process benchmark server: a free loopback port, data in `folder`, and background
    /// images never fetched from public addresses.
    static func benchmark(data folder: URL) -> ServerConfiguration {
        var configuration = ServerConfiguration()
        configuration.port = 0
        configuration.dataDirectory = folder.path
        configuration.fetchPolicy.allowsPublicAddresses = false
        return configuration
    }

    /// Without the live message rates shared per client address and per document: for
    /// benchmarks that measure how many edits the server can take, all sent from 127.0.0.1
    /// (`emojiart-bench stalls` measures the limits themselves).
    mutating func liftSharedLiveLimits() {
        liveMessagesPerAddress = RateLimit(perSecond: 1e9, burst: 1e9)
        liveMessagesPerDocument = RateLimit(perSecond: 1e9, burst: 1e9)
    }
}

/// The web editor's reconnect backoff (js/backoff.js), which the benchmarks' windows keep too:
/// 250 ms doubling to 15 s — to 2 s after a close with 4503 —, each ±20 %.
enum EditorBackoff {
    static func delay(afterFailures failures: Int, closeCode: UInt16?) -> Duration {
        let ceiling: Double = closeCode == LiveCloseCode.documentClosed.rawValue ? 2_000 : 15_000
        let delay = min(250 * pow(2, Double(min(failures, 6))), ceiling) * Double.random(in: 0.8...1.2)
        return .milliseconds(delay)
    }
}
