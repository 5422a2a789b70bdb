import EmojiArtKit
import EmojiArtLive
import EmojiArtStore
import EmojiArtTestSupport
import Foundation
import Synchronization
import Testing

/// Seeded fuzzing of live sync: 2–6 simulated windows make random edits, undos and redos
/// (concurrently, each with a stale or current base version), disconnect and reconnect at
/// random, and read their events late. After quiescence every window's copy must equal the
/// server's, which must equal the document reloaded from the store.
///
/// `LIVE_FUZZ_SEEDS=5000 swift test --filter LiveSyncFuzzTests` runs more seeds
/// (`scripts/fuzz-live`); a failure names its seed, which `LIVE_FUZZ_SEED=N` reruns alone.
@Suite("Live sync converges: seeded fuzzing of windows, edits, undo, redo and reconnects")
struct LiveSyncFuzzTests {
    static var seeds: [UInt64] {
        let environment = ProcessInfo.processInfo.environment
        if let seed = environment["LIVE_FUZZ_SEED"].flatMap(UInt64.init) { return [seed] }
        let count = environment["LIVE_FUZZ_SEEDS"].flatMap(Int.init) ?? 60
        return (1...UInt64(count)).map { $0 }
    }

    @Test func everyWindowConvergesForEverySeed() async throws {
        for seed in Self.seeds {
            let failure = try await Self.run(seed: seed)
            #expect(failure == nil, "seed \(seed) (rerun: LIVE_FUZZ_SEED=\(seed)): \(failure ?? "")")
            if failure != nil { return }
        }
    }

    /// A window: its copy of the document and the events it has not read yet.
    final class Window: Sendable {
        struct State {
            var document: EmojiArtDocument
            var version: Int
            var inbox: [LiveEvent] = []
            var subscription: LiveSubscription?
            var pump: Task<Void, Never>?
            var problem: String?
            var trace: [String] = []
            /// Counts connections, so a closed connection's last events are dropped.
            var generation = 0
        }

        let state: Mutex<State>

        init(_ subscription: LiveSubscription) {
            state = Mutex(State(document: subscription.state.document, version: subscription.state.version))
            connect(subscription)
        }

        func connect(_ subscription: LiveSubscription) {
            state.withLock { state in
                state.subscription = subscription
                state.trace.append(
                    "connect at \(state.version): state \(subscription.state.version), missed \(subscription.missed.map { $0.map(\.version) } ?? [])"
                )
                if let missed = subscription.missed {
                    state.inbox += missed.map(LiveEvent.change)
                } else {
                    state.inbox = []
                    state.document = subscription.state.document
                    state.version = subscription.state.version
                }
            }
            // Only now: events from the stream come after the snapshot or the missed changes.
            let generation = state.withLock { state in
                state.generation += 1
                return state.generation
            }
            let pump = Task { [self] in
                for await event in subscription.events {
                    state.withLock { if $0.generation == generation { $0.inbox.append(event) } }
                }
            }
            state.withLock { $0.pump = pump }
        }

        func disconnect() {
            state.withLock { state in
                state.subscription?.continuation.finish()
                state.pump?.cancel()
                state.subscription = nil
                state.inbox = []  // unread messages are lost with the connection
                state.generation += 1
                state.trace.append("disconnect at \(state.version)")
            }
        }

        var isConnected: Bool { state.withLock { $0.subscription != nil } }

        /// Reads up to `limit` waiting events.
        func read(_ limit: Int) {
            state.withLock { state in
                let count = min(limit, state.inbox.count)
                for event in state.inbox.prefix(count) {
                    guard case .change(let change) = event else { continue }
                    if change.version <= state.version { continue }  // already had it (reconnect overlap)
                    guard change.version == state.version + 1 else {
                        state.problem =
                            state.problem
                            ?? "a gap: version \(change.version) after \(state.version); \(state.trace); inbox \(state.inbox.map { if case .change(let c) = $0 { c.version } else { -1 } })"
                        continue
                    }
                    do {
                        try change.patch.apply(to: &state.document)
                        state.version = change.version
                    } catch {
                        state.problem = state.problem ?? "version \(change.version) did not apply: \(error)"
                    }
                }
                state.inbox.removeFirst(count)
            }
        }
    }

    static func run(seed: UInt64) async throws -> String? {
        var random = SplitMix64(seed: seed)
        let store = InMemoryStore()
        let library = DocumentLibrary(store: store)
        var start = try EmojiArtDocument(title: "Fuzz")
        for index in 0..<8 {
            _ = try start.apply(.addEmoji(text: "😀", position: Point(x: index * 10, y: 0), size: 40))
        }
        let id = try await library.create(start).id
        func subscribe(since version: Int?) async throws -> LiveSubscription {
            guard let subscription = try await library.withDocument(id, { try await $0.subscribe(since: version) })
            else { throw EmojiArtError(.invalidFile, "the document vanished") }
            return subscription
        }
        var windows: [Window] = []
        for _ in 0..<Int.random(in: 2...6, using: &random) {
            windows.append(Window(try await subscribe(since: nil)))
        }
        var inFlight: [Task<Void, Never>] = []
        for _ in 0..<Int.random(in: 60...160, using: &random) {
            let window = windows[Int.random(in: 0..<windows.count, using: &random)]
            switch Int.random(in: 0..<100, using: &random) {
            case 0..<55 where window.isConnected:
                let (document, version) = window.state.withLock { ($0.document, $0.version) }
                var edits: [Edit] = []
                for _ in 0..<Int.random(in: 1...2, using: &random) {
                    edits.append(RandomEdits.edit(in: document, using: &random))
                }
                let gesture =
                    Int.random(in: 0..<4, using: &random) == 0 ? "g\(Int.random(in: 0..<2, using: &random))" : nil
                let request = Task { [edits] in
                    _ = try? await library.withDocument(id) {
                        try await $0.perform(edits, baseVersion: version, gesture: gesture)
                    }
                }
                // Sometimes wait for the answer, sometimes let requests overlap.
                if Bool.random(using: &random) { await request.value } else { inFlight.append(request) }
            case 55..<65 where window.isConnected:
                inFlight.append(Task { _ = try? await library.withDocument(id) { try await $0.undo() } })
            case 65..<72 where window.isConnected:
                inFlight.append(Task { _ = try? await library.withDocument(id) { try await $0.redo() } })
            case 72..<80 where window.isConnected:
                window.disconnect()
            case 72..<80:
                let version = window.state.withLock { $0.version }
                window.connect(try await subscribe(since: version))
            default:
                window.read(Int.random(in: 0...5, using: &random))
            }
            if Int.random(in: 0..<8, using: &random) == 0 { await Task.yield() }
        }
        // Quiescence: every request answered, every window connected and caught up.
        for request in inFlight { await request.value }
        guard let server = try await library.withDocument(id, { try await $0.state() }) else {
            return "the document vanished"
        }
        for window in windows where !window.isConnected {
            let version = window.state.withLock { $0.version }
            window.connect(try await subscribe(since: version))
        }
        for (index, window) in windows.enumerated() {
            for _ in 0..<500 where window.state.withLock({ $0.version < server.version }) {
                window.read(.max)
                try await Task.sleep(for: .milliseconds(2))
            }
            let (document, version, problem) = window.state.withLock { ($0.document, $0.version, $0.problem) }
            if let problem { return "window \(index): \(problem)" }
            guard version == server.version, document == server.document else {
                return "window \(index) is at version \(version) with \(document.emojis.count) emojis; "
                    + "the server at \(server.version) with \(server.document.emojis.count)"
            }
            window.disconnect()
        }
        // The server's copy is what the store holds.
        let reloaded = try await DocumentLibrary(store: store).withDocument(id) { try await $0.state() }
        guard reloaded?.document == server.document, reloaded?.version == server.version else {
            return "the stored document differs from the server's"
        }
        return nil
    }
}
