import EmojiArtKit
import EmojiArtWire
import Foundation
import Synchronization
import Testing

@testable import EmojiArtServer

/// Presence is relayed to the other windows of the same document only, at most 20 times a
/// second per window, and a window that leaves is announced.
@Suite("Presence between the windows of a document")
struct PresenceHubTests {
    final class Inbox: Sendable {
        private let messages = Mutex<[String]>([])
        var all: [String] { messages.withLock { $0 } }
        func deliver(_ text: String) { messages.withLock { $0.append(text) } }
    }

    @Test func updatesReachTheOthersOfTheSameDocumentOnlyAndLeavingIsTold() async {
        let hub = PresenceHub(server: "s1")
        let (document, elsewhere) = (UUID(), UUID())
        let (a, b, c) = (Inbox(), Inbox(), Inbox())
        let peerA = await hub.join(document: document, name: nil) { a.deliver($0) }
        let peerB = await hub.join(document: document, name: "ada") { b.deliver($0) }
        _ = await hub.join(document: elsewhere, name: nil) { c.deliver($0) }
        #expect(peerA == "s1-1" && peerB == "s1-2")
        // Each is told how the others see it, and who is there: B hears of A, A of B's arrival.
        #expect(
            a.all == [
                ##"{"type":"presence","peer":"s1-1","name":"Guest 1","colour":"#e8467c","you":true}"##,
                ##"{"type":"presence","peer":"s1-2","name":"ada","colour":"#1e88e5","pointer":null,"selection":[]}"##,
            ])
        #expect(
            b.all == [
                ##"{"type":"presence","peer":"s1-2","name":"ada","colour":"#1e88e5","you":true}"##,
                ##"{"type":"presence","peer":"s1-1","name":"Guest 1","colour":"#e8467c","pointer":null,"selection":[]}"##,
            ])
        #expect(c.all.count == 1)  // only its own `you`: other documents are not its room
        let start = ContinuousClock.now
        await hub.update(
            document: document, peer: peerA,
            PresenceUpdate(
                pointer: Point(x: 3, y: -4), selection: [7], view: ViewArea(x: 1.5, y: -2, width: 800, height: 600)),
            at: start)
        #expect(
            b.all.last
                == ##"{"type":"presence","peer":"s1-1","name":"Guest 1","colour":"#e8467c","pointer":{"x":3,"y":-4},"selection":[7],"view":{"x":1.5,"y":-2.0,"width":800.0,"height":600.0}}"##
        )
        #expect(a.all.count == 2 && c.all.count == 1)  // not echoed, not to other documents

        // 20 a second: an update 10 ms later waits; one 50 ms after the first goes at once and
        // takes the waiting one's place.
        await hub.update(
            document: document, peer: peerA, PresenceUpdate(pointer: Point(x: 5, y: 5), selection: []),
            at: start + .milliseconds(10))
        #expect(b.all.count == 3)
        await hub.update(
            document: document, peer: peerA, PresenceUpdate(pointer: nil, selection: []), at: start + .milliseconds(50))
        #expect(b.all.count == 4 && b.all[3].contains(#""pointer":null"#))

        // A window joining later hears who is there and where.
        let late = Inbox()
        _ = await hub.join(document: document, name: nil) { late.deliver($0) }
        #expect(late.all.first?.contains(##""name":"Guest 2","colour":"#43a047","you":true"##) == true)
        #expect(late.all.count == 3)
        await hub.update(
            document: document, peer: peerB, PresenceUpdate(pointer: Point(x: 1, y: 1), selection: []), at: start)
        #expect(a.all.last?.contains(#""name":"ada""#) == true)
        #expect(late.all.last?.contains(#""peer":"\#(peerB)""#) == true)

        await hub.leave(document: document, peer: peerA)
        #expect(b.all.last == #"{"type":"presence","peer":"\#(peerA)","left":true}"#)
        #expect(await hub.count(in: document) == 2)
    }

    @Test func inABigRoomAWindowThatNeverShowedAnythingComesAndGoesUnannounced() async {
        let hub = PresenceHub()
        let document = UUID()
        let stayer = Inbox()
        _ = await hub.join(document: document, name: nil) { stayer.deliver($0) }
        for _ in 1..<PresenceHub.announcedRoomSize { _ = await hub.join(document: document, name: nil) { _ in } }
        let heard = stayer.all.count
        #expect(heard == PresenceHub.announcedRoomSize)  // its `you`, and everyone else who joined
        var silent: [String] = []
        for _ in 0..<100 { silent.append(await hub.join(document: document, name: nil) { _ in }) }
        for peer in silent { await hub.leave(document: document, peer: peer) }
        #expect(stayer.all.count == heard)
        #expect(await hub.count(in: document) == PresenceHub.announcedRoomSize)
        // One that shows something is announced, and its leaving too.
        let shower = await hub.join(document: document, name: nil) { _ in }
        await hub.update(document: document, peer: shower, PresenceUpdate(pointer: .zero, selection: []))
        await hub.leave(document: document, peer: shower)
        #expect(stayer.all.count == heard + 2)
    }

    @Test func bringingEveryoneHereReachesTheOthersAtMostOnceInTwoSeconds() async {
        let hub = PresenceHub(server: "s")
        let document = UUID()
        let (a, b) = (Inbox(), Inbox())
        let peerA = await hub.join(document: document, name: "ada") { a.deliver($0) }
        _ = await hub.join(document: document, name: "bo") { b.deliver($0) }
        let start = ContinuousClock.now
        await hub.summon(document: document, peer: peerA, at: start)
        await hub.summon(document: document, peer: peerA, at: start + .seconds(1))
        #expect(
            b.all.filter { $0.contains(#""type":"summon""#) } == [
                ##"{"type":"summon","peer":"s-1","name":"ada","colour":"#e8467c"}"##
            ])
        #expect(!a.all.contains { $0.contains("summon") })
        await hub.summon(document: document, peer: peerA, at: start + .seconds(3))
        #expect(b.all.filter { $0.contains(#""type":"summon""#) }.count == 2)
    }

    @Test func presenceMessagesAreReadStrictly() throws {
        let update = try LiveInbound(
            json: Array(#"{"type":"presence","pointer":{"x":1,"y":2},"selection":[3,4]}"#.utf8))
        #expect(update == .presence(PresenceUpdate(pointer: Point(x: 1, y: 2), selection: [3, 4])))
        #expect(
            try LiveInbound(json: Array(#"{"type":"presence","pointer":null}"#.utf8))
                == .presence(PresenceUpdate(pointer: nil, selection: [])))
        #expect(throws: (any Error).self) {
            try LiveInbound(json: Array(#"{"type":"presence","pointer":{"x":1e9,"y":0}}"#.utf8))
        }
        #expect(throws: (any Error).self) {
            try LiveInbound(json: Array(#"{"type":"presence","selection":"all"}"#.utf8))
        }
        let many = "[" + (0..<5_000).map(String.init).joined(separator: ",") + "]"
        guard case .presence(let big) = try LiveInbound(json: Array(#"{"type":"presence","selection":\#(many)}"#.utf8))
        else {
            Issue.record("not presence")
            return
        }
        #expect(big.selection.count == PresenceUpdate.maximumSelection)
    }

    @Test func anUpdateThatComesTooSoonIsRelayedWhenItsIntervalIsUp() async throws {
        let hub = PresenceHub()
        let document = UUID()
        let (a, b) = (Inbox(), Inbox())
        let peerA = await hub.join(document: document, name: nil) { a.deliver($0) }
        _ = await hub.join(document: document, name: nil) { b.deliver($0) }
        let joined = b.all.count  // its `you`, and A
        let start = ContinuousClock.now
        for x in 0..<30 {  // a burst within 30 ms: the first goes, the rest wait and the newest wins
            await hub.update(
                document: document, peer: peerA, PresenceUpdate(pointer: Point(x: x, y: 0), selection: []),
                at: start + .milliseconds(x))
        }
        #expect(b.all.count == joined + 1)
        let deadline = ContinuousClock.now + .seconds(5)
        while b.all.count < joined + 2, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        #expect(b.all.count == joined + 2)
        #expect(b.all.last?.contains(#""pointer":{"x":29,"y":0}"#) == true)
    }
}
