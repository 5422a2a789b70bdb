import Foundation
import Testing

/// Find or Lose over its WebSocket (docs/API.md, "Find or Lose"), with the offline emoji tiles.
@Suite struct GameChannelTests {
    /// Messages until one of `phase` (and `level`, if given), skipping the score's drops.
    func next(_ window: LiveTestWindow, phase: String, level: Int? = nil) async throws -> [String: Any] {
        while true {
            let message = try await window.next()
            if message["phase"] as? String == phase, level == nil || message["level"] as? Int == level {
                return message
            }
        }
    }

    @Test func aGameIsPlayedByIntentsAndTheOddTileIsNeverSaid() async throws {
        try await withLiveServer { _, port in
            let window = LiveTestWindow(port: port, path: "/api/game/live")
            let first = try await window.next()
            #expect(first["type"] as? String == "state" && first["title"] as? String == "Find or Lose")
            #expect(first["score"] as? Int == 0 && (first["tiles"] as? [Any])?.isEmpty == true)
            #expect((first["source"] as? [String: Any])?["name"] as? String == "Emoji tiles from your palettes")

            window.send(#"{"type":"tap","tile":0}"#)  // nothing to tap: ignored
            window.send(#"{"type":"play"}"#)
            let playing = try await next(window, phase: "playing")
            #expect(playing["title"] as? String == "Level: 1")
            #expect(Set(playing.keys) == ["type", "phase", "title", "level", "score", "tiles", "source"])
            let emojis = try #require(playing["tiles"] as? [[String: String]]).compactMap { $0["emoji"] }
            #expect(emojis.count == 4 && Set(emojis).count == 2)
            let odd = try #require(emojis.indices.first { index in emojis.filter { $0 == emojis[index] }.count == 1 })

            try await Task.sleep(for: .milliseconds(350))  // a level's first moments ignore taps
            window.send(#"{"type":"tap","tile":\#(odd)}"#)
            let level2 = try await next(window, phase: "playing", level: 2)
            // The find scored (how much depends on how fast the tap came, on a loaded machine
            // too: the arithmetic is FindOrLoseTests', on a virtual clock).
            #expect(level2["title"] as? String == "Level: 2" && (level2["score"] as? Int ?? 0) > 0)
            let tiles = try #require(level2["tiles"] as? [[String: String]]).compactMap { $0["emoji"] }
            let wrong = try #require(tiles.indices.first { index in tiles.filter { $0 == tiles[index] }.count == 3 })
            try await Task.sleep(for: .milliseconds(350))
            window.send(#"{"type":"tap","tile":\#(wrong)}"#)
            let over = try await next(window, phase: "stopped")
            #expect(over["title"] as? String == "Find or Lose" && over["score"] as? Int == 0)
            #expect((over["message"] as? String)?.hasPrefix("Game over at level 2 with ") == true)

            // Not an intent: the connection is closed with 4400.
            window.send(#"{"type":"tap"}"#)
            #expect(try await window.closeFrame()?.closeCode == .unknown(4400))
            window.finish()
        }
    }
}
