import EmojiArtWire
import NIOCore
import Synchronization

/// Which live connection a WebSocket request asks for, and for whom: what the live router's
/// route found out before the upgrade (``LiveUpgrade``), carried to the connection.
enum LiveRoute: Sendable {
    /// `GET /api/documents/{id}/live`: one window following one document (``LiveChannel``).
    case document(LiveStart)
    /// `GET /api/palettes/live`: a window following the requester's palettes (``PaletteChannel``).
    case palettes(RequestAccess)
    /// `GET /api/game/live`: one Find or Lose game (``GameChannel``).
    case game(RequestAccess)

    /// The connection's kind, as the metrics name it (`emojiart_live_connections{kind=…}`).
    var kind: String {
        switch self {
        case .document: "document"
        case .palettes: "palettes"
        case .game: "game"
        }
    }
}

/// Where a live route leaves its ``LiveRoute`` (a request context is copied on its way through
/// the middleware; this box is shared by the copies).
final class LiveRouteBox: Sendable {
    private let route = Mutex<LiveRoute?>(nil)

    var value: LiveRoute? {
        get { route.withLock { $0 } }
        set { route.withLock { $0 = newValue } }
    }
}

/// What the live connections are made with: one channel per route, each starting its own
/// session on a ``LiveSocket``.
struct LiveChannels: Sendable {
    let documents: LiveChannel
    let palettes: PaletteChannel
    let game: GameChannel
    /// How long a close this side starts waits for the window's (``LiveSocket/Configuration``).
    let closeTimeout: TimeAmount

    /// The socket a route's connection speaks through: the longest message its window may send.
    func socketConfiguration(for route: LiveRoute) -> LiveSocket.Configuration {
        let maximumMessageBytes =
            switch route {
            case .document: documents.limits.maximumMessageBytes
            case .palettes: PaletteChannel.maximumMessageBytes
            case .game: GameIntent.maximumMessageBytes
            }
        return LiveSocket.Configuration(maximumMessageBytes: maximumMessageBytes, closeTimeout: closeTimeout)
    }

    /// Hands a socket just upgraded (``LiveUpgrade``) to the route's session and starts opening
    /// it, on the channel's event loop.
    ///
    /// - Parameter finished: called once the connection has closed and let go of everything.
    func connect(
        _ route: LiveRoute, socket: LiveSocket, channel: any Channel, finished: @escaping @Sendable () -> Void
    ) -> LiveSocket.Handle {
        let handle = LiveSocket.Handle(socket, eventLoop: channel.eventLoop)
        let session: any LiveSocketSession =
            switch route {
            case .document(let start): documents.session(start, socket: handle, channel: channel, finished: finished)
            case .palettes(let access):
                PaletteSession(
                    channel: palettes, access: access, socket: handle,
                    writer: LiveStateWriter(channel: channel, waiting: PaletteChannel.waitingStates), finished: finished
                )
            case .game(let access):
                GameSession(
                    channel: game, access: access, socket: handle,
                    writer: LiveStateWriter(channel: channel, waiting: GameChannel.waitingStates), finished: finished)
            }
        socket.listener = session
        session.open()
        return handle
    }
}
