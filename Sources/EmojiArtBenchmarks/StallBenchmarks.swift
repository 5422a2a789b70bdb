import AsyncHTTPClient
import EmojiArtServer
import EmojiArtStore
import EmojiArtStoreSQLite
import Foundation
import NIOCore
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// `emojiart-bench stalls` (issue #21, "No stalls"): what the rest of the server feels while
///
/// - **a crowd opens a big document**: 200 windows open a 100,000-emoji document at once, a
///   quarter of them never reading a byte, while `/api/health` and edits to another document
///   are timed every 20 ms — five crowds one after another, so the p99s rest on about 300
///   probes each;
/// - **connections flood a document**: 25 connections each send 180 moves a second (each under
///   its own limit of 200) to the document a normal window edits 10 times a second; its
///   acknowledgements are timed — with the shared limits, and without them for comparison.
///
/// Everything comes from 127.0.0.1, so the per-address share is in play too. The clients run in
/// the benchmark's process, on the same 2 cores as the server; the crowd's sockets are read by
/// one thread, as one event-driven client would (a thread per socket would take the cores from
/// the server).
enum StallBenchmarks {
    static func run(smoke: Bool, into report: inout Report) async throws {
        OpenFileLimit.raise()
        try await openingCrowd(smoke: smoke, into: &report)
        if ProcessInfo.processInfo.environment["EMOJIART_BENCH_OPENERS"] != nil { return }
        for limited in [true, false] { try await flood(smoke: smoke, limited: limited, into: &report) }
    }

    // MARK: A crowd opening a big document

    static func openingCrowd(smoke: Bool, into report: inout Report) async throws {
        let folder = benchmarkFolder("stalls")
        defer { try? FileManager.default.removeItem(at: folder) }
        let configuration = ServerConfiguration.benchmark(data: folder)
        let emojiCount = smoke ? 1_000 : 100_000
        // `EMOJIART_BENCH_OPENERS=READERS,SLEEPERS` measures other crowds.
        let openers = ProcessInfo.processInfo.environment["EMOJIART_BENCH_OPENERS"].map {
            $0.split(separator: ",").compactMap { Int($0) }
        }
        let (readers, sleepers) =
            if let openers, openers.count == 2 { (openers[0], openers[1]) } else { smoke ? (15, 5) : (150, 50) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let store = try Stores.sqlite(path: try require(configuration.databasePath)).documents
        let big = UUID()
        try await store.createDocument(
            StoredDocument(
                id: big, document: try generatedDocument(count: emojiCount), version: 0, createdAt: Date(),
                updatedAt: Date()), owner: LocalUser.id)

        // Several crowds, one after another, so the p99s rest on a few hundred probes, not on the
        // one slowest of sixty.
        let rounds = smoke ? 1 : 5
        let result = try await ServerBenchmarks.withServer(configuration) { base in
            let port = try require(URL(string: base)?.port)
            let other = try await ServerBenchmarks.createDocument(base, client: .shared)
            let probing = Probes()
            let probes = Task { await probing.run(base: base, document: other) }
            try await Task.sleep(for: .milliseconds(500))  // a baseline before the crowd
            let start = ContinuousClock.now
            var snapshots: [Double] = []
            var slowest = 0.0
            for _ in 0..<rounds {
                let round = ContinuousClock.now
                let sleeping = (0..<sleepers).compactMap { _ in
                    RawLiveSocket(port: port, document: big, small: true)
                }
                let reading = (0..<readers).compactMap { _ in RawLiveSocket(port: port, document: big) }
                snapshots += await SnapshotReaders.read(reading, since: round)
                slowest = max(slowest, seconds(ContinuousClock.now - round))
                // The sleepers stay connected a little longer, holding what was written to them.
                try await Task.sleep(for: .seconds(1))
                for socket in sleeping + reading { socket.close() }
                try await Task.sleep(for: .milliseconds(200))
            }
            probes.cancel()
            await probes.value
            return (probing.results(since: start), snapshots, slowest)
        }
        let (probes, snapshots, allRead) = result
        report.add(
            "stalls: \(readers + sleepers) windows open a \(emojiCount)-emoji document (\(sleepers) never read), \(rounds)×",
            "\(snapshots.count) of \(readers * rounds) readers had the snapshot, each crowd within \(format(allRead, 2)) s (p50 \(format(percentile(snapshots.sorted(), 0.5), 2)) s)"
        )
        report.add(
            "stalls: meanwhile GET /api/health",
            "p50 \(format(probes.health.p50 * 1000)) ms, p99 \(format(probes.health.p99 * 1000)) ms (\(probes.health.count) probes)",
            target: "p99 ≤ 100 ms")
        report.add(
            "stalls: meanwhile an edit to another document",
            "p50 \(format(probes.edits.p50 * 1000)) ms, p99 \(format(probes.edits.p99 * 1000)) ms (\(probes.edits.count) edits)",
            target: "p99 ≤ 100 ms")
    }

    /// `/api/health` and an edit to another document, each every 20 ms, timed.
    final class Probes: Sendable {
        private let samples = Mutex<[(kind: Int, at: ContinuousClock.Instant, seconds: Double)]>([])

        func run(base: String, document: String) async {
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await self.repeatedly(kind: 0) { try await Self.health(base) } }
                group.addTask { await self.repeatedly(kind: 1) { try await Self.edit(base, document: document) } }
            }
        }

        private func repeatedly(kind: Int, _ probe: @escaping @Sendable () async throws -> Void) async {
            while !Task.isCancelled {
                let start = ContinuousClock.now
                if (try? await probe()) != nil {
                    let time = seconds(ContinuousClock.now - start)
                    samples.withLock { $0.append((kind, start, time)) }
                }
                try? await Task.sleep(for: .milliseconds(20))
            }
        }

        static func health(_ base: String) async throws {
            let response = try await HTTPClient.shared.execute(
                HTTPClientRequest(url: "\(base)api/health"), timeout: .seconds(30))
            _ = try await response.body.collect(upTo: 64 * 1024)
            guard response.status == .ok else { throw BenchmarkError("health answered \(response.status)") }
        }

        static func edit(_ base: String, document: String) async throws {
            var request = HTTPClientRequest(url: "\(base)api/documents/\(document)/edits")
            request.method = .POST
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(
                ByteBuffer(string: #"{"baseVersion":0,"edit":{"type":"moveEmojis","ids":[1],"offset":{"x":1,"y":-1}}}"#)
            )
            let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
            _ = try await response.body.collect(upTo: 1024 * 1024)
            guard response.status == .ok else { throw BenchmarkError("edit answered \(response.status)") }
        }

        typealias Summary = (p50: Double, p99: Double, count: Int)

        func results(since start: ContinuousClock.Instant) -> (health: Summary, edits: Summary) {
            let samples = self.samples.withLock { $0 }.filter { $0.at >= start }
            if CommandLine.arguments.contains("--verbose") {
                for sample in samples where sample.seconds > 0.02 {
                    print(
                        "slow probe \(sample.kind) at +\(format(seconds(sample.at - start) * 1000, 0)) ms: \(format(sample.seconds * 1000, 0)) ms"
                    )
                }
            }
            func summary(_ kind: Int) -> Summary {
                let sorted = samples.filter { $0.kind == kind }.map(\.seconds).sorted()
                return (percentile(sorted, 0.5), percentile(sorted, 0.99), sorted.count)
            }
            return (summary(0), summary(1))
        }
    }

    // MARK: Connections flooding a document

    static func flood(smoke: Bool, limited: Bool, into report: inout Report) async throws {
        let folder = benchmarkFolder("flood")
        defer { try? FileManager.default.removeItem(at: folder) }
        var configuration = ServerConfiguration.benchmark(data: folder)
        if !limited {
            configuration.liftSharedLiveLimits()
        }
        let flooderCount = smoke ? 5 : 25
        let (floodRate, windowRate) = (180, 10)
        let duration: Duration = smoke ? .milliseconds(500) : .seconds(5)
        let (acknowledgements, flooded) = try await ServerBenchmarks.withServer(configuration) { base in
            let port = try require(URL(string: base)?.port)
            let id = try await ServerBenchmarks.createDocument(base, client: .shared)
            let floodRecorder = DeliveryRecorder()
            let recorder = DeliveryRecorder()
            let flooders = (0..<flooderCount).map {
                LiveBenchmarkWindow(index: $0 + 1, document: 0, port: port, id: id, recorder: floodRecorder)
            }
            let window = LiveBenchmarkWindow(index: 0, document: 0, port: port, id: id, recorder: recorder)
            defer { for window in flooders + [window] { window.finish() } }
            try await floodRecorder.waitForSnapshots(flooderCount)
            try await recorder.waitForSnapshots(1)
            let start = ContinuousClock.now
            let end = start + duration
            await withTaskGroup(of: Void.self) { group in
                for (index, sender) in ([window] + flooders).enumerated() {
                    let interval = Duration.seconds(1) / (index == 0 ? windowRate : floodRate)
                    group.addTask {
                        var next = start + interval * (Double(index) / Double(flooderCount + 1))
                        while next < end {
                            try? await Task.sleep(until: next, clock: .continuous)
                            sender.sendMove()
                            next += interval
                        }
                    }
                }
            }
            try await recorder.waitForAnswers(timeout: .seconds(60))
            let sendingTime = seconds(ContinuousClock.now - start)
            return (recorder.acknowledgements, Double(floodRecorder.acknowledgements.count) / sendingTime)
        }
        report.add(
            "stalls: \(flooderCount) connections × \(floodRate) moves/s flood one document, \(limited ? "shared limits" : "no shared limits (before)")",
            "a window's acks (\(windowRate)/s) p50 \(format(acknowledgements.p50 * 1000)) ms, p99 \(format(acknowledgements.p99 * 1000)) ms; flooders' moves applied \(format(flooded, 0))/s",
            target: limited ? "p99 ≤ 100 ms" : "")
    }
}

/// A live connection over a plain socket, for crowds a WebSocket client library would spend
/// the benchmark's CPU on. It sends the upgrade request and nothing more; ``SnapshotReaders``
/// reads the first message (the snapshot) of many at once, and a socket left alone is a client
/// that never reads (`small` gives it a small receive buffer, as a stalled client's fills).
final class RawLiveSocket: Sendable {
    let descriptor: Int32

    convenience init?(port: Int, document: UUID, small: Bool = false) {
        self.init(port: port, path: "/api/documents/\(document.uuidString)/live", small: small)
    }

    /// A WebSocket to any live route (`/api/palettes/live`, `/api/game/live`).
    init?(port: Int, path: String, small: Bool = false) {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return nil }
        if small {
            var size: Int32 = 4096
            setsockopt(descriptor, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        let request =
            "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n"
            + "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
            + "Sec-WebSocket-Version: 13\r\n\r\n"
        guard connected == 0, Array(request.utf8).withUnsafeBytes({ write(descriptor, $0.baseAddress, $0.count) }) > 0
        else {
            Glibc.close(descriptor)
            return nil
        }
        self.descriptor = descriptor
    }

    func close() { shutdown(descriptor, Int32(SHUT_RDWR)) }

    deinit { Glibc.close(descriptor) }
}

/// Reads each socket's upgrade answer and first message, all on one thread (as one event-driven
/// client would), and says how long each took from `start`.
enum SnapshotReaders {
    private struct Progress {
        var pending: [UInt8] = []
        var upgraded = false
        /// The current frame's payload bytes still to come, and whether it ends the message.
        var remaining = 0
        var final = false
        var done = false
    }

    /// Seconds from `start` until each socket's snapshot had arrived, for those whose did.
    static func read(_ sockets: [RawLiveSocket], since start: ContinuousClock.Instant) async -> [Double] {
        await withCheckedContinuation { continuation in
            let descriptors = sockets.map(\.descriptor)
            Thread {
                continuation.resume(returning: readAll(descriptors, since: start))
            }.start()
        }
    }

    private static func readAll(_ descriptors: [Int32], since start: ContinuousClock.Instant) -> [Double] {
        var progress = [Progress](repeating: Progress(), count: descriptors.count)
        var times: [Double] = []
        var buffer = [UInt8](repeating: 0, count: 256 * 1024)
        var open = descriptors.count
        let deadline = start + .seconds(60)
        while open > 0, ContinuousClock.now < deadline {
            var polls = descriptors.enumerated().filter { !progress[$0.offset].done }.map {
                pollfd(fd: $0.element, events: Int16(POLLIN), revents: 0)
            }
            let indices = descriptors.indices.filter { !progress[$0].done }
            guard poll(&polls, nfds_t(polls.count), 1000) > 0 else { continue }
            for (slot, index) in indices.enumerated() where polls[slot].revents != 0 {
                let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptors[index], $0.baseAddress, $0.count) }
                guard count > 0 else {
                    progress[index].done = true
                    open -= 1
                    continue
                }
                if advance(&progress[index], with: buffer[0..<count]) {
                    progress[index].done = true
                    open -= 1
                    times.append(seconds(ContinuousClock.now - start))
                }
            }
        }
        return times
    }

    /// Takes in bytes read; true once the first message (all its fragments) is whole.
    private static func advance(_ progress: inout Progress, with bytes: ArraySlice<UInt8>) -> Bool {
        var bytes = bytes
        // Payload is counted, not kept.
        if progress.pending.isEmpty, progress.remaining > 0 {
            let taken = min(progress.remaining, bytes.count)
            progress.remaining -= taken
            bytes = bytes.dropFirst(taken)
            if progress.remaining > 0 { return false }
            if progress.final { return true }
        }
        progress.pending += bytes
        if !progress.upgraded {
            // The upgrade's answer ends with an empty line.
            let pending = progress.pending
            let end: [UInt8] = [13, 10, 13, 10]
            guard let headerEnd = pending.indices.dropLast(3).first(where: { pending[$0..<$0 + 4].elementsEqual(end) })
            else { return false }
            progress.pending.removeFirst(headerEnd + 4)
            progress.upgraded = true
        }
        while true {
            if progress.remaining > 0 {
                let taken = min(progress.remaining, progress.pending.count)
                progress.pending.removeFirst(taken)
                progress.remaining -= taken
                if progress.remaining > 0 { return false }
            }
            if progress.final { return true }
            // The next frame's header.
            let pending = progress.pending
            guard pending.count >= 2 else { return false }
            var length = Int(pending[1] & 0x7F)
            let headerLength = length == 126 ? 4 : length == 127 ? 10 : 2
            guard pending.count >= headerLength else { return false }
            if headerLength > 2 { length = pending[2..<headerLength].reduce(0) { $0 << 8 | Int($1) } }
            progress.final = pending[0] & 0x80 != 0
            progress.pending.removeFirst(headerLength)
            progress.remaining = length
            if length == 0, progress.final { return true }
        }
    }
}
