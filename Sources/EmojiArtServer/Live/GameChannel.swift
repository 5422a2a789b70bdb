import EmojiArtGame
import EmojiArtWire
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

    /// Intents beyond this rate close the connection (a person taps a few a second).
    static let intents = RateLimit(perSecond: 30, burst: 30)

    func run(inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter) async {
        let session = FindOrLoseSession(source: source, clock: ContinuousClock())
        let snapshots = await session.snapshots()
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                do {
                    for await snapshot in snapshots {
                        try await outbound.write(.text(LiveMessages.game(snapshot)))
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
        let clock = MonotonicSeconds()
        var intents = TokenBucket(Self.intents, now: clock.now)
        do {
            for try await message in inbound.messages(maxSize: GameIntent.maximumMessageBytes) {
                guard intents.take(now: clock.now) else {
                    try await outbound.close(
                        .unknown(LiveCloseCode.tooManyMessages.rawValue), reason: "Too many messages; slow down.")
                    return
                }
                let intent: GameIntent
                do throws(GameIntent.Unreadable) {
                    guard case .text(let text) = message else { throw GameIntent.Unreadable(reason: "Send text.") }
                    intent = try GameIntent(json: text)
                } catch {
                    try await outbound.close(.unknown(LiveCloseCode.badMessage.rawValue), reason: error.reason)
                    return
                }
                switch intent {
                case .play: await session.play()
                case .stop: await session.stop()
                case .tap(let tile): await session.tap(tile)
                }
            }
        } catch {
            logger.debug("game connection ended: \(error)")
        }
    }
}
