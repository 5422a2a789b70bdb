import EmojiArtGame
import Foundation
import HummingbirdWebSocket
import Logging

/// `GET /api/game/live`, upgraded to a WebSocket: one Find or Lose game per connection
/// (docs/API.md, "Find or Lose"). The window sends intents — `{"type": "play"}`,
/// `{"type": "stop"}`, `{"type": "tap", "tile": 0…3}` — and renders the `{"type": "state", …}`
/// messages the server sends on connect, after every change and each time the score drops.
/// The rules, the clock and the pictures are all on the server; the window never learns which
/// tile is the odd one until the player has chosen.
struct GameChannel: Sendable {
    let source: any GameImageSource
    let logger: Logger

    /// Intents beyond this many a second close the connection (a person taps a few a second).
    static let maximumIntentsPerSecond = 30

    enum CloseCode: UInt16 {
        case badMessage = 4400
        case tooManyMessages = 4429
    }

    struct Intent: Decodable {
        var type: String
        var tile: Int?
    }

    func run(inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter) async {
        let session = FindOrLoseSession(source: source, clock: ContinuousClock())
        let snapshots = await session.snapshots()
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                do {
                    for await snapshot in snapshots {
                        try await outbound.write(.text(Self.message(snapshot)))
                    }
                } catch {
                    logger.debug("game connection ended: \(error)")
                }
            }
            group.addTask {
                await readIntents(inbound: inbound, outbound: outbound, session: session)
            }
            await group.next()
            group.cancelAll()
        }
        await session.close()
    }

    private func readIntents(
        inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter,
        session: FindOrLoseSession<ContinuousClock>
    ) async {
        var windowStart = ContinuousClock.now
        var intentsInWindow = 0
        do {
            for try await message in inbound.messages(maxSize: 1024) {
                if ContinuousClock.now - windowStart >= .seconds(1) {
                    windowStart = .now
                    intentsInWindow = 0
                }
                intentsInWindow += 1
                guard intentsInWindow <= Self.maximumIntentsPerSecond else {
                    try await outbound.close(
                        .unknown(CloseCode.tooManyMessages.rawValue), reason: "Too many messages; slow down.")
                    return
                }
                guard case .text(let text) = message,
                    let intent = try? JSONDecoder().decode(Intent.self, from: Data(text.utf8))
                else {
                    try await outbound.close(
                        .unknown(CloseCode.badMessage.rawValue),
                        reason: "Send {\"type\": \"play\" | \"stop\" | \"tap\"}.")
                    return
                }
                switch (intent.type, intent.tile) {
                case ("play", _): await session.play()
                case ("stop", _): await session.stop()
                case ("tap", let tile?): await session.tap(tile)
                default:
                    try await outbound.close(
                        .unknown(CloseCode.badMessage.rawValue), reason: "Unknown intent \(intent.type.prefix(40)).")
                    return
                }
            }
        } catch {
            logger.debug("game connection ended: \(error)")
        }
    }

    /// `{"type": "state", "phase", "title", "level", "score", "tiles": [{"emoji"} | {"image"}],
    /// "message", "error", "source": {"name", "remainingCalls", "callLimit"}}`.
    static func message(_ snapshot: GameSnapshot) -> String {
        struct Tile: Encodable {
            var emoji: String?
            var image: String?
        }
        struct Source: Encodable {
            var name: String
            var remainingCalls: Int?
            var callLimit: Int?
        }
        struct State: Encodable {
            var type = "state"
            var phase: String
            var title: String
            var level: Int
            var score: Int
            var tiles: [Tile]
            var message: String?
            var error: String?
            var source: Source
        }
        let state = State(
            phase: snapshot.phase, title: snapshot.title, level: snapshot.level, score: snapshot.score,
            tiles: snapshot.tiles.map { tile in
                switch tile {
                case .emoji(let emoji): Tile(emoji: emoji)
                case .stored(let id): Tile(image: "/api/images/\(id)")
                }
            },
            message: snapshot.message, error: snapshot.errorCode,
            source: Source(
                name: snapshot.source.name, remainingCalls: snapshot.source.remainingCalls,
                callLimit: snapshot.source.callLimit))
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return String(decoding: (try? encoder.encode(state)) ?? Data("{}".utf8), as: UTF8.self)
    }
}
