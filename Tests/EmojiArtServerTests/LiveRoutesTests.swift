import EmojiArtServer
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import NIOEmbedded
import NIOWebSocket
import Testing

@testable import EmojiArtServer

/// One WebSocket stack: the live router decides which requests become live connections
/// (documents, palettes, the game), and everything else — an unknown path, a refused site — is
/// answered by the HTTP router. (A WebSocket request for an unknown path, answered `404` and
/// closed, and the close codes that come right with the upgrade are checked on the real server
/// with a raw socket, Tests/System/test_live_upgrade.py: this test client reports the first as
/// `connectionClosing`, and sometimes misses the second.)
@Suite struct LiveRoutesTests {
    static let webSocket: HTTPFields = [
        .upgrade: "websocket", .connection: "Upgrade", .secWebSocketKey: "dGhlIHNhbXBsZSBub25jZQ==",
        .secWebSocketVersion: "13",
    ]

    /// What the live router's answer means, with what its route recorded.
    static let decisions: [(HTTPResponse.Status?, Bool, String)] = [
        (.notFound, false, "notLive"),
        (.ok, true, "upgrade palettes"),
        (.ok, false, "refuse"),
        (.badRequest, false, "refuse"),
        (.badRequest, true, "refuse"),
        (.notFound, true, "refuse"),
        (nil, false, "refuse"),
    ]

    @Test(arguments: decisions)
    func theLiveRouterDecides(status: HTTPResponse.Status?, routed: Bool, decision: String) {
        let route: LiveRoute? = routed ? .palettes(.nobody) : nil
        let answer = LiveUpgrade.decision(response: status.map { Response(status: $0) }, route: route)
        let said =
            switch answer {
            case .notLive: "notLive"
            case .refuse: "refuse"
            case .upgrade(_, let route): "upgrade \(route.kind)"
            }
        #expect(said == decision)
    }

    @Test(arguments: ["/api/palettes/live", "/api/game/live"])
    func aRefusedSitesUpgradeIsAnsweredByTheHTTPRouter(path: String) async throws {
        try await withLiveServer { api, _ in
            var crossSite = Self.webSocket
            crossSite[.origin] = "http://evil.example"
            let refused = try await api.request(.get, path, headers: crossSite)
            #expect(refused.status == .forbidden)
            #expect((refused.json["error"] as? [String: Any])?["code"] as? String == "cross_site")
            // (A foreign Host, 421, is checked on the real server: Tests/System/test_site_guard.py.)
        }
    }

    @Test func aGameWindowGetsTheGameOnConnectAndPlays() async throws {
        try await withLiveServer { _, port in
            let window = LiveTestWindow(port: port, path: "/api/game/live")
            defer { window.finish() }
            let first = try await window.next()
            #expect(first["type"] as? String == "state" && first["phase"] as? String == "stopped")
            window.send(#"{"type":"play"}"#)
            var phases: [String] = []
            while phases.last != "playing" { phases.append(try #require(try await window.next()["phase"] as? String)) }
            #expect(phases.last == "playing")
        }
    }

    @Test func eachAccountFollowsItsOwnPalettes() async throws {
        let people = try await LiveAccessTests.People.make()
        try await withLiveServer(access: .accounts, stores: people.stores) { api, port in
            let ada = LiveTestWindow(port: port, path: "/api/palettes/live", headers: people.cookies["ada"]!)
            let vic = LiveTestWindow(port: port, path: "/api/palettes/live", headers: people.cookies["vic"]!)
            defer { for window in [ada, vic] { window.finish() } }
            let adas = try await ada.next()
            let vics = try await vic.next()
            #expect(adas["type"] as? String == "palettes" && vics["type"] as? String == "palettes")
            let created = try await api.request(
                .post, "/api/palettes", json: ["name": "Ada's", "emojis": "🦊"], headers: people.cookies["ada"]!)
            #expect(created.status == .created)
            let next = try await ada.next()
            #expect((next["palettes"] as? [[String: Any]])?.last?["name"] as? String == "Ada's")
            // Vic's palettes didn't change: he is sent nothing.
            try await Task.sleep(for: .milliseconds(300))
            #expect(vic.received.count == 1)
        }
    }
}

/// ``LiveStateWriter`` on an embedded channel: states in order, only the newest waiting while the
/// socket is full, nothing after it stops.
@Suite struct LiveStateWriterTests {
    private func written(_ channel: EmbeddedChannel) throws -> [String] {
        var texts: [String] = []
        while let frame = try channel.readOutbound(as: WebSocketFrame.self) {
            texts.append(String(buffer: frame.unmaskedData))
        }
        return texts
    }

    @Test func statesGoOutInOrderAndOnlyTheNewestWaitForAFullSocket() throws {
        let channel = EmbeddedChannel()
        let writer = LiveStateWriter(channel: channel, waiting: 2)
        writer.send("a")
        writer.send("b")
        channel.embeddedEventLoop.run()
        #expect(try written(channel) == ["a", "b"])

        channel.isWritable = false
        for text in ["c", "d", "e"] { writer.send(text) }
        channel.embeddedEventLoop.run()
        #expect(try written(channel).isEmpty, "nothing is written to a full socket")
        channel.isWritable = true
        writer.writabilityChanged()
        #expect(try written(channel) == ["d", "e"], "the newest two waited")

        writer.stop()
        #expect(writer.send("f") == false)
        channel.embeddedEventLoop.run()
        #expect(try written(channel).isEmpty)
    }
}
