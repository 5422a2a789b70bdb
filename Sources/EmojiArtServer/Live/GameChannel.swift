import EmojiArtGame
import Logging

/// `GET /api/game/live`, upgraded to a WebSocket: one Find or Lose game per connection
/// (docs/API.md, "Find or Lose"). The window sends intents — `{"type": "play"}`,
/// `{"type": "stop"}`, `{"type": "tap", "tile": 0…3}` — and renders the `{"type": "state", …}`
/// messages the server sends on connect, after every change and each time the score drops.
/// The rules, the clock and the pictures are all on the server; the window never learns which
/// tile is the odd one until the player has chosen.
///
/// Each level spends calls to outside services, so only people with an account play: anyone
/// else is closed with 4401.
struct GameChannel: Sendable {
    let source: any GameImageSource
    let logger: Logger

    /// Intents beyond this rate close the connection (a person taps a few a second).
    static let intents = RateLimit(perSecond: 30, burst: 30)

    /// How many of the newest game states wait while a window's socket is full
    /// (``LiveStateWriter``).
    static let waitingStates = 8
}
