import EmojiArtKit
import EmojiArtStore
import EmojiArtWire
import Foundation
import Synchronization
import Testing

@testable import EmojiArtServer

/// Windows on different servers sharing one database see each other as windows on one server
/// do: the hubs tell each other through the database's broadcasts (here in process,
/// ``LocalBroadcast``; PostgreSQL's `NOTIFY` in the store tests and the browser tests).
@Suite("Presence across servers")
struct PresenceAcrossServersTests {
    typealias Inbox = PresenceHubTests.Inbox

    /// Two servers' hubs on one broadcast, each followed as `emojiart serve` follows it.
    struct TwoServers {
        let broadcast = LocalBroadcast()
        let a: PresenceHub
        let b: PresenceHub
        let services: Task<Void, Never>

        init() async throws {
            a = PresenceHub(server: "a", broadcasts: broadcast)
            b = PresenceHub(server: "b", broadcasts: broadcast)
            let (broadcast, a, b) = (broadcast, a, b)
            services = Task {
                await withDiscardingTaskGroup { group in
                    for hub in [a, b] {
                        group.addTask { try? await BroadcastService(broadcasts: broadcast, hub: hub).run() }
                    }
                }
            }
            try await eventually { broadcast.followerCount == 2 }
        }

        func stop() { services.cancel() }
    }

    @Test func pointersJoinsSummonsAndLeavingCrossServers() async throws {
        let servers = try await TwoServers()
        defer { servers.stop() }
        let document = UUID()
        let (onA, onB) = (Inbox(), Inbox())
        let ada = await servers.a.join(document: document, name: "ada") { onA.deliver($0) }
        try await eventually { await servers.b.count(in: document) == 1 }
        // B's first window hears of Ada at once.
        let guest = await servers.b.join(document: document, name: nil) { onB.deliver($0) }
        try await eventually { onB.all.contains { $0.contains(#""peer":"a-1","name":"ada""#) } }
        try await eventually { onA.all.contains { $0.contains(#""peer":"b-1","name":"Guest 1""#) } }
        // Distinct colours whichever server each is on.
        #expect(onB.all.first?.contains(##""colour":"#e8467c""##) == false)

        await servers.a.update(
            document: document, peer: ada,
            PresenceUpdate(
                pointer: Point(x: 10, y: 20), selection: [1, 2], view: ViewArea(x: 0, y: 0, width: 100, height: 50)))
        try await eventually {
            onB.all.contains(
                ##"{"type":"presence","peer":"a-1","name":"ada","colour":"#e8467c","pointer":{"x":10,"y":20},"selection":[1,2],"view":{"x":0.0,"y":0.0,"width":100.0,"height":50.0}}"##
            )
        }
        await servers.b.summon(document: document, peer: guest)
        try await eventually {
            onA.all.contains(##"{"type":"summon","peer":"b-1","name":"Guest 1","colour":"#1e88e5"}"##)
        }

        // A second guest on A is numbered after B's.
        let second = Inbox()
        _ = await servers.a.join(document: document, name: nil) { second.deliver($0) }
        #expect(second.all.first?.contains(#""name":"Guest 2""#) == true)

        await servers.a.leave(document: document, peer: ada)
        try await eventually { onB.all.last == #"{"type":"presence","peer":"a-1","left":true}"# }
        #expect(await servers.b.count(in: document) == 2)  // B's guest and A's second

        // A server started later asks, and is told who is there.
        let c = PresenceHub(server: "c", broadcasts: servers.broadcast)
        let follower = Task { try? await BroadcastService(broadcasts: servers.broadcast, hub: c).run() }
        defer { follower.cancel() }
        try await eventually { servers.broadcast.followerCount == 3 }
        let onC = Inbox()
        _ = await c.join(document: document, name: "cy") { onC.deliver($0) }
        try await eventually { await c.count(in: document) == 3 }
        #expect(
            onC.all.contains { $0.contains(#""peer":"b-1""#) } && onC.all.contains { $0.contains(#""peer":"a-2""#) })
    }

    @Test func theWindowsOfAServerGoneSilentLeave() async throws {
        let broadcast = LocalBroadcast()
        let b = PresenceHub(server: "b", broadcasts: broadcast)
        let document = UUID()
        let inbox = Inbox()
        let local = await b.join(document: document, name: nil) { inbox.deliver($0) }
        let start = ContinuousClock.now
        let ghost = PeerPresence(
            peer: "a-1", name: "ada", colour: "#1e88e5", update: PresenceUpdate(pointer: .zero, selection: []))
        await b.receive(PresenceBatch(server: "a", document: document, signals: [.presence(ghost)]), at: start)
        #expect(await b.count(in: document) == 2)
        await b.tick(at: start + .seconds(10))
        #expect(await b.count(in: document) == 2)  // quiet, not yet gone
        await b.receive(PresenceBatch(server: "a", document: nil, signals: []), at: start + .seconds(10))
        await b.tick(at: start + .seconds(24))
        #expect(await b.count(in: document) == 2)  // its heartbeat kept it
        await b.tick(at: start + .seconds(26))
        #expect(await b.count(in: document) == 1)
        #expect(inbox.all.last == #"{"type":"presence","peer":"a-1","left":true}"#)
        await b.leave(document: document, peer: local)
        #expect(await b.roomCount == 0)
    }

    /// A server only cut off for a while (its database connection, a stalled machine) is heard
    /// again: its windows, dropped for the silence, are asked for again, so windows that don't
    /// move aren't missing for good; and they come back.
    @Test func aServerHeardAgainAfterItsSilenceIsAskedWhoIsThere() async throws {
        let recorder = Recorder()
        let b = PresenceHub(server: "b", broadcasts: recorder)
        let document = UUID()
        let inbox = Inbox()
        _ = await b.join(document: document, name: nil) { inbox.deliver($0) }
        let start = ContinuousClock.now
        let ada = PeerPresence(
            peer: "a-1", name: "ada", colour: "#1e88e5", update: PresenceUpdate(pointer: nil, selection: []))
        await b.receive(PresenceBatch(server: "a", document: document, signals: [.presence(ada)]), at: start)
        await b.receive(PresenceBatch(server: "a", document: nil, signals: []), at: start + .seconds(1))
        try await eventually { recorder.signals.contains { if case .hello = $0 { true } else { false } } }
        recorder.clear()  // B's own join; hearing A's heartbeats asks nothing
        await b.receive(PresenceBatch(server: "a", document: nil, signals: []), at: start + .seconds(5))
        await b.tick(at: start + .seconds(21))
        #expect(await b.count(in: document) == 1)  // A taken to have left
        await b.receive(PresenceBatch(server: "a", document: nil, signals: []), at: start + .seconds(22))
        try await eventually {
            recorder.sent.contains {
                $0.document == document && $0.signals.contains { if case .hello = $0 { true } else { false } }
            }
        }
        // A answers as to any hello, and its idle window is back.
        await b.receive(
            PresenceBatch(server: "a", document: document, signals: [.roster([1]), .presence(ada)]),
            at: start + .seconds(23))
        #expect(await b.count(in: document) == 2)
        #expect(inbox.all.last?.contains(#""peer":"a-1","name":"ada""#) == true)
    }

    /// Records what a hub broadcasts; fails the sends it is told to.
    final class Recorder: InstanceBroadcast {
        let maximumPayload = 7_900
        private let state = Mutex<(sent: [PresenceBatch], failing: Bool)>(([], false))
        var sent: [PresenceBatch] { state.withLock { $0.sent } }
        var signals: [PresenceBatch.Signal] { sent.flatMap(\.signals) }
        func fail(_ failing: Bool) { state.withLock { $0.failing = failing } }
        func clear() { state.withLock { $0.sent = [] } }

        func broadcast(_ payloads: [String]) async throws {
            try state.withLock {
                if $0.failing { throw CancellationError() }
                $0.sent += payloads.compactMap(PresenceBatch.init(payload:))
            }
        }

        func followBroadcasts(_ handle: @Sendable (InstanceBroadcastEvent) async -> Void) async {}
    }

    @Test func afterAGapInListeningEachRoomAsksAgainAndWindowsNotListedLeave() async throws {
        let recorder = Recorder()
        let hub = PresenceHub(server: "b", broadcasts: recorder)
        let document = UUID()
        let inbox = Inbox()
        _ = await hub.join(document: document, name: nil) { inbox.deliver($0) }
        let ada = PeerPresence(
            peer: "a-1", name: "ada", colour: "#1e88e5", update: PresenceUpdate(pointer: nil, selection: []))
        let bo = PeerPresence(
            peer: "a-2", name: "bo", colour: "#43a047", update: PresenceUpdate(pointer: nil, selection: []))
        await hub.receive(PresenceBatch(server: "a", document: document, signals: [.presence(ada), .presence(bo)]))
        #expect(await hub.count(in: document) == 3)
        try await eventually { !recorder.sent.isEmpty }
        recorder.clear()
        await hub.reconnected()
        try await eventually { recorder.signals.contains(.hello) }
        #expect(await hub.count(in: document) == 3)  // nobody is dropped on a guess
        // A answers: only a-2 is still there.
        await hub.receive(PresenceBatch(server: "a", document: document, signals: [.roster([2]), .presence(bo)]))
        #expect(await hub.count(in: document) == 2)
        #expect(inbox.all.contains(#"{"type":"presence","peer":"a-1","left":true}"#))
    }

    @Test func aServerSpeaksOnlyForItsOwnWindows() async throws {
        let hub = PresenceHub(server: "b")
        let document = UUID()
        let inbox = Inbox()
        let local = await hub.join(document: document, name: nil) { inbox.deliver($0) }
        func presence(_ peer: String, name: String = "x", colour: String = "#1e88e5") -> PresenceBatch.Signal {
            .presence(
                PeerPresence(
                    peer: peer, name: name, colour: colour, update: PresenceUpdate(pointer: nil, selection: [])))
        }
        let heard = inbox.all.count
        // Our own batches, ids of another server's (or ours), colours not of the palette, and a
        // guest number that would overflow are all passed over or kept in bounds.
        await hub.receive(PresenceBatch(server: "b", document: document, signals: [presence("b-7")]))
        await hub.receive(PresenceBatch(server: "a", document: document, signals: [presence("c-1"), presence(local)]))
        await hub.receive(
            PresenceBatch(server: "a", document: document, signals: [presence("a-1", colour: "red;background:url(x)")]))
        await hub.receive(PresenceBatch(server: "a", document: document, signals: [.left(peer: local)]))
        await hub.receive(
            PresenceBatch(
                server: "a", document: document, signals: [.summon(peer: "a-9", name: "x", colour: "#1e88e5")]))
        #expect(await hub.count(in: document) == 1 && inbox.all.count == heard)
        await hub.receive(
            PresenceBatch(
                server: "a", document: document,
                signals: [presence("a-2", name: "Guest \(Int.max)"), presence("a-3", name: "Guest 41")]))
        #expect(await hub.count(in: document) == 3)
        let next = Inbox()
        _ = await hub.join(document: document, name: nil) { next.deliver($0) }
        #expect(next.all.first?.contains(#""name":"Guest 42""#) == true)
    }

    @Test func afterAFailedSendEveryRoomToldOfIsListedAgain() async throws {
        let recorder = Recorder()
        let hub = PresenceHub(server: "b", broadcasts: recorder)
        let (stays, empties) = (UUID(), UUID())
        _ = await hub.join(document: stays, name: "ada") { _ in }
        let leaving = await hub.join(document: empties, name: "bo") { _ in }
        try await eventually { recorder.signals.count >= 4 }
        recorder.fail(true)
        await hub.leave(document: empties, peer: leaving)  // this `left` is lost
        try await Task.sleep(for: .milliseconds(50))
        recorder.fail(false)
        recorder.clear()
        await hub.tick()
        try await eventually { recorder.sent.count >= 3 }
        let rosters = recorder.sent.compactMap { batch -> (UUID?, [Int])? in
            for case .roster(let numbers) in batch.signals { return (batch.document, numbers) }
            return nil
        }
        #expect(rosters.contains { $0.0 == stays && $0.1 == [1] })
        #expect(rosters.contains { $0.0 == empties && $0.1 == [] })
    }

    @Test func batchesReadBackAndSplitUnderTheLimit() throws {
        let document = UUID()
        let presences = (0..<200).map { index in
            PeerPresence(
                peer: "a-\(index)", name: "Name \"\(index)\"\n<b>", colour: "#e8467c",
                update: PresenceUpdate(pointer: Point(x: index, y: -index), selection: Array(0..<index % 7)))
        }
        let batch = PresenceBatch(
            server: "a", document: document,
            signals: presences.map(PresenceBatch.Signal.presence) + [
                .left(peer: "a-9"), .summon(peer: "a-1", name: "ada", colour: "#1e88e5"), .hello, .roster([1, 2, 30]),
            ])
        let payloads = batch.payloads(limit: 7_900)
        #expect(payloads.count > 1)
        #expect(payloads.allSatisfy { $0.utf8.count <= 7_900 })
        let read = payloads.compactMap(PresenceBatch.init(payload:))
        #expect(read.count == payloads.count)
        #expect(read.allSatisfy { $0.server == "a" && $0.document == document })
        #expect(read.flatMap(\.signals) == batch.signals)

        // A selection too big for one payload loses its end; the pointer still goes.
        let huge = PeerPresence(
            peer: "a-1", name: "ada", colour: "#e8467c",
            update: PresenceUpdate(pointer: .zero, selection: Array(1_000_000..<1_001_000)))
        let one = PresenceBatch(server: "a", document: document, signals: [.presence(huge)]).payloads(limit: 7_900)
        #expect(one.count == 1 && one[0].utf8.count <= 7_900)
        guard case .presence(let shrunk) = PresenceBatch(payload: one[0])?.signals.first else {
            Issue.record("not read back")
            return
        }
        #expect(
            shrunk.update.pointer == .zero && !shrunk.update.selection.isEmpty && shrunk.update.selection.count < 1_000)

        // A heartbeat, and what is not a batch.
        #expect(
            PresenceBatch(payload: "emojiart-presence 1 a -") == PresenceBatch(server: "a", document: nil, signals: []))
        for garbage in [
            "", "a 12 3", "emojiart-presence 2 a -", "emojiart-presence 1 a nope", "emojiart-presence 1 a -\nX y",
            "emojiart-presence 1 a -\nP {\"peer\":1}",
        ] {
            #expect(PresenceBatch(payload: garbage) == nil, "\(garbage)")
        }
    }

    @Test func viewsAndSummonsAreReadStrictly() throws {
        #expect(
            try LiveInbound(
                json: Array(#"{"type":"presence","pointer":null,"view":{"x":1,"y":-2.5,"width":10,"height":20}}"#.utf8))
                == .presence(
                    PresenceUpdate(pointer: nil, selection: [], view: ViewArea(x: 1, y: -2.5, width: 10, height: 20))))
        #expect(try LiveInbound(json: Array(#"{"type":"summon"}"#.utf8)) == .summon)
        #expect(
            try LiveInbound(json: Array(#"{"type":"presence","pointer":null,"following":"3fa2b9c1-12"}"#.utf8))
                == .presence(PresenceUpdate(pointer: nil, selection: [], following: "3fa2b9c1-12")))
        let echoed = PeerPresence(
            peer: "a-1", name: "ada", colour: "#1e88e5",
            update: PresenceUpdate(pointer: nil, selection: [], following: "b-2"))
        #expect(LiveMessages.presence(echoed).hasSuffix(#""selection":[],"following":"b-2"}"#))
        for bad in [
            #"{"type":"presence","view":{"x":1,"y":2,"width":0,"height":20}}"#,
            #"{"type":"presence","view":{"x":1e12,"y":2,"width":10,"height":20}}"#,
            #"{"type":"presence","view":{"x":1,"y":2,"width":10}}"#,
            #"{"type":"presence","view":"all"}"#,
            #"{"type":"presence","following":"<img src=x>"}"#,
            #"{"type":"presence","following":""}"#,
            #"{"type":"presence","following":7}"#,
        ] {
            #expect(throws: (any Error).self, "\(bad)") { try LiveInbound(json: Array(bad.utf8)) }
        }
    }
}
