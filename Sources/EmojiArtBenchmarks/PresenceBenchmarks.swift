import EmojiArtTestSupport
import Foundation
import HummingbirdWSClient
import Logging
import Synchronization

/// `emojiart-bench presence`: two servers on one PostgreSQL database, one document, and windows
/// split between them, every one moving its pointer 20 times a second (the most the server
/// relays). Reported: how long a pointer takes from a window on one server to the windows on
/// the other (`NOTIFY`, batched per document), p50 and p99, and the share of moves that arrived
/// (a move superseded while it waited is not relayed, by design). Both servers, PostgreSQL and
/// the windows share the machine's cores.
enum PresenceBenchmarks {
    static func run(smoke: Bool, into report: inout Report) async throws {
        let counts = smoke ? [6] : [10, 50, 100]
        let duration: Duration = smoke ? .seconds(1) : .seconds(8)
        for count in counts {
            let result = try await InstanceBenchmarks.withTwoServers { baseA, baseB in
                try await measure(windows: count, bases: [baseA, baseB], for: duration)
            }
            report.add(
                "presence across 2 servers, \(count) windows moving 20/s",
                "pointer to the other server's windows p50 \(format(result.p50 * 1000)) ms, p99 \(format(result.p99 * 1000)) ms, max \(format(result.max * 1000)) ms; \(format(result.arrived * 100, 1)) % of moves arrived (\(result.deliveries) deliveries)"
            )
        }
    }

    struct Result {
        var p50: Double
        var p99: Double
        var max: Double
        var arrived: Double
        var deliveries: Int
    }

    static func measure(windows count: Int, bases: [String], for duration: Duration) async throws -> Result {
        let ports = try bases.map { try require(URL(string: $0)?.port) }
        let id = try await ServerBenchmarks.createDocument(bases[0], client: .shared)
        let delays = Mutex<[Double]>([])
        let origin = ContinuousClock.now
        let windows = (0..<count).map { index in
            PresenceWindow(index: index, port: ports[index % 2], id: id, origin: origin) { sender, sentAt, now in
                // Only what crosses to the other server counts.
                guard sender % 2 != index % 2 else { return }
                delays.withLock { $0.append(now - sentAt) }
            }
        }
        defer { for window in windows { window.finish() } }
        // Everyone present everywhere before anyone moves.
        let deadline = ContinuousClock.now + .seconds(30)
        while windows.contains(where: { $0.peersSeen < count - 1 }) {
            guard ContinuousClock.now < deadline else {
                // Which windows missed whom, and whether they were ever connected.
                let seen = windows.map {
                    "\($0.index % 2 == 0 ? "A" : "B")\($0.index): \($0.peersSeen)\($0.connected ? "" : " (never connected)")"
                }
                throw BenchmarkError(
                    "the windows never all saw each other: others seen per window \(seen.joined(separator: ", "))")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        let sent = try await withThrowingTaskGroup(of: Int.self) { group in
            for window in windows {
                group.addTask {
                    // Staggered, so the windows don't all move in the same millisecond.
                    try await Task.sleep(for: .milliseconds(Int.random(in: 0..<50)))
                    var moves = 0
                    let end = ContinuousClock.now + duration
                    var next = ContinuousClock.now
                    while ContinuousClock.now < end {
                        window.move()
                        moves += 1
                        next += .milliseconds(50)
                        try await Task.sleep(until: next)
                    }
                    return moves
                }
            }
            return try await group.reduce(0, +)
        }
        try await Task.sleep(for: .milliseconds(500))  // the last moves land
        let all = delays.withLock { $0 }.sorted()
        // Each move is for the count / 2 windows on the other server.
        let expected = Double(sent) * Double(count / 2)
        return Result(
            p50: percentile(all, 0.5), p99: percentile(all, 0.99), max: all.last ?? 0,
            arrived: expected > 0 ? Double(all.count) / expected : 0, deliveries: all.count)
    }
}

/// A window that moves its pointer and times the others' moves: its pointer's x is the time it
/// moved (milliseconds since `origin`), its y its index.
final class PresenceWindow: Sendable {
    private let outgoing: AsyncStream<String>.Continuation
    private let task: Task<Void, Never>
    private let origin: ContinuousClock.Instant
    private final class Peers: Sendable {
        let ids = Mutex<Set<String>>([])
        /// Whether the server ever sent the window anything (its snapshot first).
        let connected = Atomic<Bool>(false)
    }
    private let seen = Peers()
    var connected: Bool { seen.connected.load(ordering: .relaxed) }

    /// - Parameter arrived: (sender index, sent at, now), in seconds since `origin`.
    init(
        index: Int, port: Int, id: String, origin: ContinuousClock.Instant,
        arrived: @escaping @Sendable (Int, Double, Double) -> Void
    ) {
        self.origin = origin
        let (messages, outgoing) = AsyncStream.makeStream(of: String.self)
        self.outgoing = outgoing
        let seen = self.seen
        task = Task {
            await liveWindow(port: port, document: id, sending: messages) { text in
                seen.connected.store(true, ordering: .relaxed)
                guard text.hasPrefix(#"{"type":"presence""#) else { return }
                let now = seconds(ContinuousClock.now - origin)
                if let pointer = Self.pointer(in: text) {
                    arrived(pointer.y, Double(pointer.x) / 1000, now)
                } else if !text.contains(#""you":true"#), !text.contains(#""left":true"#),
                    let peer = Self.peer(in: text)
                {
                    _ = seen.ids.withLock { $0.insert(peer) }
                }
            }
        }
        self.index = index
    }

    let index: Int

    /// How many others this window has heard of.
    var peersSeen: Int { seen.ids.withLock { $0.count } }

    func move() {
        let milliseconds = Int(seconds(ContinuousClock.now - origin) * 1000)
        outgoing.yield(#"{"type":"presence","pointer":{"x":\#(milliseconds),"y":\#(index)},"selection":[]}"#)
    }

    func finish() {
        outgoing.finish()
        task.cancel()
    }

    /// `"pointer":{"x":…,"y":…}` read by hand: parsing whole JSON here would take CPU from the servers.
    private static func pointer(in text: String) -> (x: Int, y: Int)? {
        guard let range = text.range(of: #""pointer":{"x":"#) else { return nil }
        let rest = text[range.upperBound...]
        guard let comma = rest.firstIndex(of: ","), let x = Int(rest[..<comma]) else { return nil }
        let afterY = rest[comma...].dropFirst(#","y":"#.count)
        guard let y = Int(afterY.prefix { $0 == "-" || $0.isNumber }) else { return nil }
        return (x, y)
    }

    private static func peer(in text: String) -> String? {
        guard let range = text.range(of: #""peer":""#) else { return nil }
        return String(text[range.upperBound...].prefix { $0 != "\"" })
    }
}
