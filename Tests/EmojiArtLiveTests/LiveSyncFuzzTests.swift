import EmojiArtKit
import EmojiArtStore
import EmojiArtStoreSQLite
import EmojiArtTestSupport
import EmojiArtWire
import Foundation
import Synchronization
import Testing

@testable import EmojiArtLive

/// Seeded fuzzing of live sync: 2–6 simulated windows make random edits, undos and redos
/// (concurrently, each with a stale or current base version), disconnect and reconnect at
/// random, and read their events late — while the server restarts (a new library on the same
/// store, with the old one's requests still finishing, as a second instance would), unloads
/// the document under them, and windows resend earlier requests, duplicated and out of order.
/// After quiescence every window's copy must equal the server's, which must equal the document
/// reloaded from the store, and no request may be in the log twice. Last, every window's
/// messages are replayed through the editor's own code in Chromium (``ChromiumReplay``).
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
        var runs: [ChromiumReplay.Run] = []
        for seed in Self.seeds {
            let (failure, run) = try await Self.run(seed: seed)
            #expect(failure == nil, "seed \(seed) (rerun: LIVE_FUZZ_SEED=\(seed)): \(failure ?? "")")
            if failure != nil { return }
            runs.append(run)
        }
        // The same messages through the browser's applyChange.
        let outcome = try ChromiumReplay.replay(runs)
        #expect(outcome.failures == [])
        #expect(outcome.changes >= runs.count)
        #expect(outcome.probes == runs.map(\.probes.count).reduce(0, +))
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
            /// The messages this window took, as the server writes them, for ``ChromiumReplay``.
            var wire: [String] = []
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
                    state.wire.append(LiveMessages.snapshot(subscription.state))
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
                state.subscription?.end()
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
                    if event == .closed {
                        // The server closed its copy (unloaded, restarted): reconnect later.
                        state.subscription = nil
                        state.pump?.cancel()
                        state.trace.append("closed at \(state.version)")
                        break
                    }
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
                        state.wire.append(LiveMessages.change(change))
                    } catch {
                        state.problem = state.problem ?? "version \(change.version) did not apply: \(error)"
                    }
                }
                state.inbox.removeFirst(min(count, state.inbox.count))
                if state.subscription == nil { state.inbox = [] }
            }
        }
    }

    /// The server the windows talk to: replaced by a new library on the same store to restart.
    final class Server: Sendable {
        let library: Mutex<DocumentLibrary>
        init(_ library: DocumentLibrary) { self.library = Mutex(library) }
        var current: DocumentLibrary { library.withLock { $0 } }
    }

    /// A request as a window sent it, to send again.
    struct Sent: Sendable {
        var requestID: String
        var step: LogStep
        var edits: [Edit]
        var baseVersion: Int
    }

    static func send(_ request: Sent, to server: Server, document id: UUID) async {
        _ = try? await server.current.withDocument(id) { document in
            switch request.step {
            case .undo: try await document.undo(requestID: request.requestID)
            case .redo: try await document.redo(requestID: request.requestID)
            default:
                try await document.perform(
                    request.edits, baseVersion: request.baseVersion,
                    gesture: { if case .perform(let gesture) = request.step { gesture } else { nil } }(),
                    requestID: request.requestID)
            }
        }
    }

    static func run(seed: UInt64) async throws -> (failure: String?, replay: ChromiumReplay.Run) {
        var replay = ChromiumReplay.Run(seed: seed, windows: [], expected: "", probes: [])
        let failure = try await run(seed: seed, recordingInto: &replay)
        return (failure, replay)
    }

    static func run(seed: UInt64, recordingInto replay: inout ChromiumReplay.Run) async throws -> String? {
        var random = SplitMix64(seed: seed)
        let store = Stores.inMemory().documents
        let server = Server(DocumentLibrary(store: store))
        var start = try EmojiArtDocument(title: "Fuzz")
        for index in 0..<8 {
            _ = try start.apply(.addEmoji(text: "😀", position: Point(x: index * 10, y: 0), size: 40))
        }
        let id = try await server.current.create(start).id
        func subscribe(since version: Int?) async throws -> LiveSubscription {
            guard
                let subscription = try await server.current.withDocument(id, { try await $0.subscribe(since: version) })
            else { throw EmojiArtError(.invalidFile, "the document vanished") }
            return subscription
        }
        var windows: [Window] = []
        for _ in 0..<Int.random(in: 2...6, using: &random) {
            windows.append(Window(try await subscribe(since: nil)))
        }
        var inFlight: [Task<Void, Never>] = []
        var sent: [Sent] = []
        var faults: [String] = []
        for step in 0..<Int.random(in: 60...160, using: &random) {
            let window = windows[Int.random(in: 0..<windows.count, using: &random)]
            var request: Sent?
            switch Int.random(in: 0..<100, using: &random) {
            case 0..<50 where window.isConnected:
                let (document, version) = window.state.withLock { ($0.document, $0.version) }
                var edits: [Edit] = []
                for _ in 0..<Int.random(in: 1...2, using: &random) {
                    edits.append(RandomEdits.edit(in: document, using: &random))
                }
                let gesture =
                    Int.random(in: 0..<4, using: &random) == 0 ? "g\(Int.random(in: 0..<2, using: &random))" : nil
                request = Sent(
                    requestID: "r\(step)", step: .perform(gesture: gesture), edits: edits, baseVersion: version)
            case 50..<58 where window.isConnected:
                request = Sent(requestID: "r\(step)", step: .undo, edits: [], baseVersion: 0)
            case 58..<64 where window.isConnected:
                request = Sent(requestID: "r\(step)", step: .redo, edits: [], baseVersion: 0)
            case 64..<72 where !sent.isEmpty:
                // A resend: the latest request again, or an older one out of order.
                let index =
                    Bool.random(using: &random) ? sent.count - 1 : Int.random(in: 0..<sent.count, using: &random)
                let again = sent[index]
                faults.append("resend \(again.requestID) at \(step)")
                inFlight.append(Task { await send(again, to: server, document: id) })
            case 72..<78 where window.isConnected:
                window.disconnect()
            case 72..<78:
                let version = window.state.withLock { $0.version }
                window.connect(try await subscribe(since: version))
            case 78..<80:
                // A restart: a new server on the same store; every window's connection drops.
                // The old server's requests still in flight finish there (or fail), as they
                // would on a second instance.
                faults.append("restart at \(step)")
                server.library.withLock { $0 = DocumentLibrary(store: store) }
                for window in windows { window.disconnect() }
            case 80..<82:
                // The document unloaded under its windows (they hear `.closed` and reconnect).
                faults.append("unload at \(step)")
                await (try? server.current.document(id))??.close(reason: .unloaded)
            default:
                window.read(Int.random(in: 0...5, using: &random))
            }
            if let request {
                sent.append(request)
                let task = Task { await send(request, to: server, document: id) }
                // Sometimes wait for the answer, sometimes let requests overlap.
                if Bool.random(using: &random) { await task.value } else { inFlight.append(task) }
            }
            if Int.random(in: 0..<8, using: &random) == 0 { await Task.yield() }
        }
        // Quiescence: every request answered, every window connected and caught up.
        for request in inFlight { await request.value }
        // What the old servers committed after a restart reaches the current one, as a
        // notification between instances would bring it.
        await server.current.storeChanged(.resync)
        // A last resend of everything, in reverse order: none of it may apply again.
        let logged = Set(try await store.loadDocument(id: id)?.log.compactMap(\.requestID) ?? [])
        for request in sent.reversed() where logged.contains(request.requestID) {
            await send(request, to: server, document: id)
        }
        guard let state = try await server.current.withDocument(id, { try await $0.state() }) else {
            return "the document vanished"
        }
        for window in windows where !window.isConnected {
            let version = window.state.withLock { $0.version }
            window.connect(try await subscribe(since: version))
        }
        for (index, window) in windows.enumerated() {
            for _ in 0..<500 where window.state.withLock({ $0.version < state.version || $0.subscription == nil }) {
                window.read(.max)
                if !window.isConnected {
                    let version = window.state.withLock { $0.version }
                    window.connect(try await subscribe(since: version))
                }
                try await Task.sleep(for: .milliseconds(2))
            }
            let (document, version, problem) = window.state.withLock { ($0.document, $0.version, $0.problem) }
            if let problem { return "window \(index): \(problem); faults \(faults)" }
            guard version == state.version, document == state.document else {
                return "window \(index) is at version \(version) with \(document.emojis.count) emojis; "
                    + "the server at \(state.version) with \(state.document.emojis.count); faults \(faults)"
            }
            window.disconnect()
        }
        replay.windows = windows.map { window in window.state.withLock(\.wire) }
        replay.expected = LiveMessages.snapshot(state)
        replay.probes = ChromiumReplay.probes(for: state, using: &random)
        // The server's copy is what the store holds, and every request is in the log at most once.
        let stored = try #require(try await store.loadDocument(id: id))
        let reloaded = try await DocumentLibrary(store: store).withDocument(id) { try await $0.state() }
        guard reloaded?.document == state.document, reloaded?.version == state.version else {
            return "the stored document differs from the server's; faults \(faults)"
        }
        let requestIDs = stored.log.compactMap(\.requestID)
        guard Set(requestIDs).count == requestIDs.count else {
            let twice = Dictionary(grouping: requestIDs, by: { $0 }).filter { $0.value.count > 1 }.keys.sorted()
            return "applied twice: \(twice); faults \(faults)"
        }
        return nil
    }
}
