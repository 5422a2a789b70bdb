import EmojiArtLive
import Logging
import NIOCore

/// `GET /api/palettes/live`, upgraded to a WebSocket: a window following the shared palettes
/// (docs/API.md, "Live palettes"). The server sends `{"type": "palettes", "version",
/// "palettes": [{"id", "name", "emojis"}]}` on connect and after every change, whoever made it
/// (any window, the HTTP API, or the CLI on the same database). Changes themselves go through
/// the HTTP API; the window sends nothing (what it sends is read and dropped, up to
/// ``maximumMessageBytes`` a message).
///
/// Signed-in users follow their own palettes; a share link's visitor, the built-ins; no one at
/// all is closed with 4401.
struct PaletteChannel: Sendable {
    /// Longest message a window may send (larger ones close the connection with 1009).
    static let maximumMessageBytes = 4096

    /// Each user's palettes.
    let libraries: PaletteLibraries
    /// The built-in palettes, for visitors without an account.
    let builtIns: PaletteLibrary
    let logger: Logger

    /// Makes the window's side of a connection upgraded to a WebSocket (``LiveUpgrade``), on the
    /// channel's event loop, and starts opening it.
    ///
    /// - Parameter finished: called once the connection has closed and let go of everything.
    func connect(
        _ access: RequestAccess, socket: LiveSocket, channel: any Channel, finished: @escaping @Sendable () -> Void
    ) -> LiveSocket.Handle {
        let handle = LiveSocket.Handle(socket, eventLoop: channel.eventLoop)
        let session = PaletteSession(
            channel: self, access: access, socket: handle, writer: LiveStateWriter(channel: channel, waiting: 1),
            finished: finished)
        socket.listener = session
        session.open()
        return handle
    }

    /// The palettes `access` follows.
    func library(for access: RequestAccess) async -> PaletteLibrary {
        if let owner = access.requester.userID { await libraries.library(for: owner) } else { builtIns }
    }
}
