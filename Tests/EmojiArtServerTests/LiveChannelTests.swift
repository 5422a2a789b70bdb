import EmojiArtStore
import EmojiArtStoreSQLite
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import HummingbirdWSClient
import Logging
import Synchronization
import Testing

@testable import EmojiArtServer

/// The live WebSocket end to end on a real server (docs/API.md, "Live documents"): message
/// order, broadcasts, catch-up, resent requests, conflicts, limits and close codes.
@Suite struct LiveChannelTests {
    @Test func ownEditsAreAcknowledgedAfterTheirChangeAndReachEveryOtherWindow() async throws {
        try await withLiveServer { api, port in
            let id = try await api.createDocument()
            let a = LiveTestWindow(port: port, path: "/api/documents/\(id)/live")
            let b = LiveTestWindow(port: port, path: "/api/documents/\(id)/live")
            let snapshot = try await a.next()
            #expect(snapshot["type"] as? String == "snapshot")
            let state = try #require(snapshot["state"] as? [String: Any])
            #expect(state["version"] as? Int == 0)
            #expect(state["undoActionName"] is NSNull && state["backgroundState"] != nil)
            #expect(try await b.next()["type"] as? String == "snapshot")

            a.send(#"{"type":"edit","requestId":"a1","baseVersion":0,"edit":\#(addJSON("🦊"))}"#)
            let change = try await a.next()
            #expect(change["type"] as? String == "change" && change["version"] as? Int == 1)
            #expect(change["undoActionName"] as? String == "Add 🦊")
            let patch = try #require(change["patch"] as? [String: Any])
            let inserted = try #require(patch["inserted"] as? [[String: Any]])
            #expect(inserted.count == 1 && inserted[0]["index"] as? Int == 0)
            #expect((inserted[0]["emoji"] as? [String: Any])?["text"] as? String == "🦊")
            let ack = try await a.next()
            #expect(
                ack["type"] as? String == "ack" && ack["requestId"] as? String == "a1" && ack["version"] as? Int == 1)
            #expect(try await b.next()["version"] as? Int == 1)

            // Through the HTTP API, as a script would: every window hears it.
            let reply = try await api.edit(
                id, base: 1, [["type": "moveEmojis", "ids": [1], "offset": ["x": 5, "y": 0]]])
            #expect(reply.status == .ok)
            for window in [a, b] {
                let moved = try await window.next()
                #expect(moved["version"] as? Int == 2)
                // A move is sent as ids and an offset, not the emoji's state.
                let groups = (moved["patch"] as? [String: Any])?["moved"] as? [[String: Any]]
                #expect(groups?.first?["idRanges"] as? [[Int]] == [[1, 1]])
                #expect((groups?.first?["offset"] as? [String: Int]) == ["x": 5, "y": 0])
                #expect(((moved["patch"] as? [String: Any])?["updated"] as? [Any])?.isEmpty == true)
            }

            // Undo from B acts on the shared history; both hear it, B gets its ack.
            b.send(#"{"type":"undo","requestId":"b1"}"#)
            for window in [a, b] {
                let undone = try await window.next()
                #expect(undone["version"] as? Int == 3 && undone["redoActionName"] as? String == "Move")
            }
            #expect(try await b.next()["type"] as? String == "ack")

            // A retitle and the deletion of the document reach open windows.
            _ = try await api.request(.patch, "/api/documents/\(id)", json: ["title": "Renamed"])
            #expect((try await a.next()["patch"] as? [String: Any])?["title"] as? String == "Renamed")
            _ = try await api.request(.delete, "/api/documents/\(id)")
            var last: [String: Any] = [:]
            while last["type"] as? String != "deleted" { last = try await a.next() }
            let closed = try await a.closeFrame()
            #expect(closed?.closeCode == .unknown(4404))
            a.finish()
            b.finish()
        }
    }

    @Test func aWindowReconnectingGetsWhatItMissedAndResentRequestsAreNotAppliedTwice() async throws {
        try await withLiveServer { api, port in
            let id = try await api.createDocument()
            let a = LiveTestWindow(port: port, path: "/api/documents/\(id)/live")
            _ = try await a.next()
            a.send(#"{"type":"edit","requestId":"same","baseVersion":0,"edit":\#(addJSON("🐻"))}"#)
            _ = try await a.next()
            _ = try await a.next()
            a.finish()
            _ = try await api.edit(id, base: 1, [addEmoji("🐼")])
            _ = try await api.edit(id, base: 2, [addEmoji("🐨")])

            let again = LiveTestWindow(port: port, path: "/api/documents/\(id)/live?version=1")
            #expect(try await again.next()["version"] as? Int == 2)
            #expect(try await again.next()["version"] as? Int == 3)
            let synced = try await again.next()
            #expect(synced["type"] as? String == "synced" && synced["version"] as? Int == 3)
            #expect(synced["undoActionName"] as? String == "Add 🐨")

            // The request sent before the drop, sent again with its id: acknowledged, not repeated.
            again.send(#"{"type":"edit","requestId":"same","baseVersion":0,"edit":\#(addJSON("🐻"))}"#)
            let ack = try await again.next()
            #expect(ack["type"] as? String == "ack" && ack["version"] as? Int == 3)
            #expect(again.roles == ["owner"])  // before the changes as before a snapshot (local mode: the owner)
            let emojis = try await api.request(.get, "/api/documents/\(id)").json["emojis"] as? [[String: Any]]
            #expect(emojis?.compactMap { $0["text"] as? String } == ["🐻", "🐼", "🐨"])

            // An edit on an emoji deleted meanwhile is refused and nothing changes.
            _ = try await api.edit(id, base: 3, [["type": "deleteEmojis", "ids": [2]]])
            #expect(try await again.next()["version"] as? Int == 4)
            again.send(
                #"{"type":"edit","requestId":"late","baseVersion":3,"edit":{"type":"moveEmojis","ids":[2],"offset":{"x":1,"y":1}}}"#
            )
            let refused = try await again.next()
            #expect(refused["type"] as? String == "refused" && refused["code"] as? String == "conflict")
            #expect(refused["requestId"] as? String == "late" && refused["currentVersion"] as? Int == 4)

            // A version the server never had: a snapshot instead.
            let ahead = LiveTestWindow(port: port, path: "/api/documents/\(id)/live?version=99")
            #expect(try await ahead.next()["type"] as? String == "snapshot")
            again.finish()
            ahead.finish()
        }
    }

    @Test func paletteWindowsGetTheListOnConnectAndAfterEveryChange() async throws {
        try await withLiveServer { api, port in
            let window = LiveTestWindow(port: port, path: "/api/palettes/live")
            let first = try await window.next()
            #expect(first["type"] as? String == "palettes")
            let palettes = try #require(first["palettes"] as? [[String: Any]])
            #expect(palettes.count == 9 && palettes.first?["name"] as? String == "Vehicles")
            let created = try await api.request(.post, "/api/palettes", json: ["name": "<b>Mine</b>", "emojis": "a😀"])
            #expect(created.status == .created)
            let next = try await window.next()
            #expect(try #require(next["version"] as? Int) > (first["version"] as? Int ?? .max))
            let last = try #require((next["palettes"] as? [[String: Any]])?.last)
            #expect(last["name"] as? String == "<b>Mine</b>" && last["emojis"] as? String == "😀")
            window.finish()
        }
    }

    @Test func badMessagesFloodsAndHugeMessagesAreClosedWithTheirCodes() async throws {
        try await withLiveServer { api, port in
            let id = try await api.createDocument()

            // (An unknown document, closed with 4404 before any message, is covered by the browser
            // tests: this client library sometimes misses a close that comes with the upgrade.)
            let bad = LiveTestWindow(port: port, path: "/api/documents/\(id)/live")
            _ = try await bad.next()
            bad.send("not json")
            let badClose = try await bad.closeFrame()
            #expect(badClose?.closeCode == .unknown(4400))
            #expect(badClose?.reason?.hasPrefix("Not a request") == true)

            let unknownType = LiveTestWindow(port: port, path: "/api/documents/\(id)/live")
            _ = try await unknownType.next()
            unknownType.send(#"{"type":"explode","requestId":"x"}"#)
            #expect(try await unknownType.closeFrame()?.closeCode == .unknown(4400))

            let flood = LiveTestWindow(port: port, path: "/api/documents/\(id)/live")
            _ = try await flood.next()
            for index in 0..<1_000 { flood.send(#"{"type":"redo","requestId":"r\#(index)"}"#) }
            #expect(try await flood.closeFrame()?.closeCode == .unknown(4429))

            let huge = LiveTestWindow(port: port, path: "/api/documents/\(id)/live")
            _ = try await huge.next()
            huge.send(
                #"{"type":"edit","requestId":"big","baseVersion":0,"edit":{"type":"retitle","title":""#
                    + String(repeating: "x", count: 1_100_000) + #""}}"#)
            #expect(try await huge.closeFrame()?.closeCode == .messageTooLarge)
            #expect(try await api.request(.get, "/api/documents/\(id)").json["version"] as? Int == 0)
        }
    }
}

extension LiveChannelTests {
    /// Connections flooding one document (each under its own limit) share the document's rate;
    /// a window that sends now and then is served at the next turn, not after their backlog.
    @Test(arguments: [true, false]) func floodersWaitTheirTurnBehindAWindowThatSendsNowAndThen(perDocument: Bool)
        async throws
    {
        let slow = RateLimit(perSecond: 40, burst: 5)
        let configure: (inout ServerConfiguration) -> Void = {
            if perDocument { $0.liveMessagesPerDocument = slow } else { $0.liveMessagesPerAddress = slow }
        }
        try await withLiveServer(configure: configure) { api, port in
            let id = try await api.createDocument()
            _ = try await api.request(.post, "/api/documents/\(id)/edits", json: ["baseVersion": 0, "edit": add("😀")])
            let flooders = (0..<3).map { _ in LiveTestWindow(port: port, path: "/api/documents/\(id)/live") }
            let window = LiveTestWindow(port: port, path: "/api/documents/\(id)/live")
            for flooder in flooders + [window] { _ = try await flooder.next() }
            // 120 moves: 3 s of the shared rate.
            for (index, flooder) in flooders.enumerated() {
                for number in 0..<40 { flooder.send(move("f\(index)-\(number)")) }
            }
            try await Task.sleep(for: .milliseconds(300))
            let sent = ContinuousClock.now
            window.send(move("mine"))
            try await window.waitForAck("mine")
            let waited = ContinuousClock.now - sent
            // The window went at the next turn, not after the flooders' backlog: when it was
            // applied, fewer than half of their 120 moves were (about 17 went in the 0.3 s before
            // it, burst included). Counted in versions, not seconds: a loaded machine slows every
            // turn alike (the wait was 1.4 s once, with the whole suite on 2 cores).
            let before = try #require(window.ackVersion("mine")) - 1
            #expect(before < 60, "\(before) flooders' moves went first; waited \(waited)")
            // The flooders are slowed (120 moves at 40 a second), not closed: every move is
            // applied, once.
            for (index, flooder) in flooders.enumerated() { try await flooder.waitForAck("f\(index)-39") }
            let flooded = ContinuousClock.now - sent
            #expect(flooded > .seconds(2), "the flooders' moves were done after \(flooded)")
            #expect(try await api.request(.get, "/api/documents/\(id)").json["version"] as? Int == 122)
            for flooder in flooders + [window] { flooder.finish() }
        }
    }
}

extension LiveChannelTests {
    /// A snapshot longer than two fragments goes out in fragments of the one shared buffer; the
    /// window reads one whole message.
    @Test func aBigSnapshotArrivesWholeInFragments() async throws {
        try await withLiveServer { api, port in
            let id = try await api.createDocument()
            for batch in 0..<12 {
                let edits = (batch * 250..<(batch + 1) * 250).map {
                    addEmoji("🐻‍❄️", x: $0, y: -$0, size: 40 + $0 % 100)
                }
                let reply = try await api.edit(id, base: batch, edits)
                #expect(reply.status == .ok, "\(reply.json)")
            }
            let window = LiveTestWindow(port: port, path: "/api/documents/\(id)/live")
            let snapshot = try await window.next()
            #expect(window.received[0].utf8.count > 2 * LiveWriter.fragmentBytes, "\(window.received[0])")
            let state = try #require(snapshot["state"] as? [String: Any])
            let emojis = try #require(state["emojis"] as? [[String: Any]])
            #expect(emojis.count == 3_000)
            #expect(emojis.last?["size"] as? Int == 40 + 2_999 % 100)
            window.finish()
        }
    }
}

private func move(_ requestID: String) -> String {
    #"{"type":"edit","requestId":"\#(requestID)","baseVersion":1,"edit":{"type":"moveEmojis","ids":[1],"offset":{"x":1,"y":0}}}"#
}

private func add(_ text: String) -> [String: Any] {
    ["type": "addEmoji", "text": text, "position": ["x": 0, "y": 0], "size": 40]
}

private func addJSON(_ text: String) -> String {
    #"{"type":"addEmoji","text":"\#(text)","position":{"x":0,"y":0},"size":40}"#
}

/// Runs `body` against a real server on a free loopback port, with in-memory stores.
func withLiveServer(
    access: AccessSettings.Mode = .local, stores: Stores = .inMemory(),
    configure: (inout ServerConfiguration) -> Void = { _ in },
    _ body: @escaping @Sendable (APIClient, Int) async throws -> Void
) async throws {
    var configuration = ServerConfiguration()
    configuration.port = 0
    configuration.dataDirectory = nil
    configuration.access = access
    configuration.passwordCost = 4
    // The test's HTTP client keeps one connection and doesn't reconnect: a test that waits on
    // its windows longer than the idle timeout (a loaded machine) must not lose it.
    configuration.requestHeadTimeout = .seconds(120)
    configure(&configuration)
    let app = try await buildApplication(configuration, stores: stores, logger: Logger(label: "live-test"))
    try await app.test(.live) { client in
        try await body(APIClient(client: client), try #require(client.port))
    }
}

/// One live window: connects at once and records every message the server sends.
final class LiveTestWindow: Sendable {
    private let outgoing: AsyncStream<String>.Continuation
    /// What the server sent, and how it closed; shared with the connection's task.
    private final class Inbox: Sendable {
        let state = Mutex<(messages: [String], closed: Bool, frame: WebSocketCloseFrame?)>(([], false, nil))
        let cursor = Mutex(0)
        let presence = Mutex<[String]>([])
        let roles = Mutex<[String]>([])
    }
    private let inbox = Inbox()
    private let task: Task<Void, Never>

    init(port: Int, path: String, headers: HTTPFields = [:]) {
        let (outgoingMessages, outgoing) = AsyncStream.makeStream(of: String.self)
        self.outgoing = outgoing
        let inbox = self.inbox
        task = Task {
            var configuration = WebSocketClientConfiguration()
            configuration.maxFrameSize = 16 * 1024 * 1024
            configuration.additionalHeaders = headers
            let frame = try? await WebSocketClient.connect(
                url: "ws://127.0.0.1:\(port)\(path)", configuration: configuration,
                logger: Logger(label: "live-test-window")
            ) { inbound, outbound, _ in
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask {
                        for await text in outgoingMessages { try await outbound.write(.text(text)) }
                    }
                    for try await message in inbound.messages(maxSize: 16 * 1024 * 1024) {
                        // Other windows' presence, and the window's role, are kept apart: these
                        // tests read the document's messages.
                        guard case .text(let text) = message else { continue }
                        if text.hasPrefix(#"{"type":"access","role":""#) {
                            let role = text.dropFirst(#"{"type":"access","role":""#.count).prefix { $0 != "\"" }
                            inbox.roles.withLock { $0.append(String(role)) }
                        } else if text.hasPrefix(#"{"type":"presence""#) || text.hasPrefix(#"{"type":"summon""#) {
                            inbox.presence.withLock { $0.append(text) }
                        } else {
                            inbox.state.withLock { $0.messages.append(text) }
                        }
                    }
                    group.cancelAll()
                }
            }
            inbox.state.withLock {
                $0.closed = true
                $0.frame = frame
            }
        }
    }

    var received: [String] { inbox.state.withLock { $0.messages } }
    /// Presence messages (and calls to follow), in order.
    var presence: [String] { inbox.presence.withLock { $0 } }
    /// The roles the server said this window has (`access`), one per connection.
    var roles: [String] { inbox.roles.withLock { $0 } }

    func send(_ text: String) { outgoing.yield(text) }

    /// Ends the connection from this side.
    func finish() {
        outgoing.finish()
        task.cancel()
    }

    /// Waits until the request `requestID` is acknowledged (fails after 15 s), whatever else
    /// arrives meanwhile.
    /// The version the ack of `requestID` said, if it came.
    func ackVersion(_ requestID: String) -> Int? {
        let ack = #"{"type":"ack","requestId":"\#(requestID)""#
        guard let message = inbox.state.withLock({ $0.messages.first { $0.hasPrefix(ack) } }) else { return nil }
        return (try? JSONSerialization.jsonObject(with: Data(message.utf8)) as? [String: Any])?["version"] as? Int
    }

    func waitForAck(_ requestID: String) async throws {
        let ack = #"{"type":"ack","requestId":"\#(requestID)""#
        let deadline = ContinuousClock.now + .seconds(15)
        while !inbox.state.withLock({ $0.messages.contains { $0.hasPrefix(ack) } }) {
            guard ContinuousClock.now < deadline else {
                Issue.record("no ack for \(requestID) within 15 s")
                throw CancellationError()
            }
            try await Task.sleep(for: .milliseconds(2))
        }
    }

    /// The next message not yet read, as a JSON object; fails after 10 s.
    func next() async throws -> [String: Any] {
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            let index = inbox.cursor.withLock { $0 }
            let text: String? = inbox.state.withLock { index < $0.messages.count ? $0.messages[index] : nil }
            if let text {
                inbox.cursor.withLock { $0 += 1 }
                return try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
            }
            try await Task.sleep(for: .milliseconds(2))
        }
        Issue.record("no message within 10 s (read \(inbox.cursor.withLock { $0 }))")
        throw CancellationError()
    }

    /// How the server closed the connection; fails after 10 s.
    func closeFrame() async throws -> WebSocketCloseFrame? {
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            if let (closed, frame) = inbox.state.withLock({ $0.closed ? ($0.closed, $0.frame) : nil }), closed {
                return frame
            }
            try await Task.sleep(for: .milliseconds(2))
        }
        Issue.record("the connection was not closed within 10 s")
        return nil
    }
}
