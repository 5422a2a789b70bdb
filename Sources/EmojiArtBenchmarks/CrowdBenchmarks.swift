import EmojiArtServer
import Foundation

/// `emojiart-bench crowd` (issue #21): one document followed by 200, 500 and 1,000 windows while
/// one more window makes 100 moves a second (open loop, on a schedule). The delivery latency is
/// the time from a move being sent to its change arriving at each following window; every change
/// must reach every window.
///
/// The windows run in the benchmark's process, on the same 2 cores as the server: the sender is
/// a WebSocket client; the followers are plain sockets read by one thread (``CrowdFollowers``),
/// so the CPU goes to the server's fan-out rather than to a thousand client tasks.
enum CrowdBenchmarks {
    static func run(smoke: Bool, into report: inout Report) async throws {
        OpenFileLimit.raise()
        let folder = benchmarkFolder("crowd")
        defer { try? FileManager.default.removeItem(at: folder) }
        let configuration = ServerConfiguration.benchmark(data: folder)
        // `EMOJIART_BENCH_CROWDS=1000,2000` measures other crowds.
        let crowds =
            ProcessInfo.processInfo.environment["EMOJIART_BENCH_CROWDS"].map {
                $0.split(separator: ",").compactMap { Int($0) }
            } ?? (smoke ? [20] : [200, 500, 1_000])
        let rate = 100
        let duration: Duration = smoke ? .milliseconds(500) : .seconds(5)
        // `EMOJIART_BENCH_URL=http://127.0.0.1:PORT/` measures a server already running (a
        // release `emojiart serve`), so its CPU time and the windows' can be told apart.
        let external = ProcessInfo.processInfo.environment["EMOJIART_BENCH_URL"]
        let body: @Sendable (String) async throws -> [(crowd: Int, result: DeliveryResult, delivered: Double)] = {
            base in
            let port = try require(URL(string: base)?.port)
            let id = try await ServerBenchmarks.createDocument(base, client: .shared)
            var results: [(crowd: Int, result: DeliveryResult, delivered: Double)] = []
            for crowd in crowds {
                let recorder = DeliveryRecorder()
                // Window 0 sends; the others follow, read by one thread (``CrowdFollowers``).
                let sender = LiveBenchmarkWindow(index: 0, document: 0, port: port, id: id, recorder: recorder)
                let followers = CrowdFollowers(
                    count: crowd, first: 1, port: port, id: try require(UUID(uuidString: id)), recorder: recorder)
                defer {
                    sender.finish()
                    followers.stop()
                }
                try await recorder.waitForSnapshots(crowd + 1)
                let interval = Duration.seconds(1) / rate
                let start = ContinuousClock.now
                var next = start
                var sent = 0
                while next < start + duration {
                    try await Task.sleep(until: next, clock: .continuous)
                    sender.sendMove()
                    sent += 1
                    next += interval
                }
                let sendingTime = seconds(ContinuousClock.now - start)
                try await recorder.waitForAnswers(timeout: .seconds(30))
                // The sender hears its own changes too.
                try await recorder.waitForArrivals(sent * (crowd + 1), timeout: .seconds(30))
                print("crowd \(crowd): \(recorder.counts)")
                let result = recorder.result(sendingTime: sendingTime, otherWindows: crowd) { sender, receiver in
                    sender != receiver
                }
                results.append((crowd, result, Double(recorder.arrivalCount) / Double(sent * (crowd + 1))))
                // Let the closed windows go before the next crowd opens.
                try await Task.sleep(for: .milliseconds(500))
            }
            return results
        }
        let results =
            if let external { try await body(external.hasSuffix("/") ? external : external + "/") } else {
                try await ServerBenchmarks.withServer(configuration, body)
            }
        for (crowd, result, delivered) in results {
            report.add(
                "crowd: \(crowd) windows on one document, \(rate) moves/s",
                "delivery p50 \(format(result.p50 * 1000)) ms, p99 \(format(result.p99 * 1000)) ms, \(format(result.deliveriesPerSecond, 0)) deliveries/s, \(format(delivered * 100, 1))% delivered",
                target: crowd == 1_000 ? "p99 ≤ 50 ms, 100% delivered" : "")
        }
    }
}
