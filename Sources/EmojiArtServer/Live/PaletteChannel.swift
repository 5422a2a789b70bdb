import EmojiArtLive
import Logging

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

    /// How many of the newest lists of palettes wait while a window's socket is full
    /// (``LiveStateWriter``).
    static let waitingStates = 1

    /// The palettes `access` follows.
    func library(for access: RequestAccess) async -> PaletteLibrary {
        if let owner = access.requester.userID { await libraries.library(for: owner) } else { builtIns }
    }
}
