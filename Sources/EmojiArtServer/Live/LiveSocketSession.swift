import EmojiArtStore
import EmojiArtWire
import Synchronization

/// What a live session writes to its window through: ``LiveWriter`` for a document,
/// ``LiveStateWriter`` for the palettes and the game. The socket's side stops it and tells it
/// when the socket can take more.
protocol LiveSessionWriter: Sendable {
    /// The connection is closing: nothing more is written.
    func stop()
    /// The socket can take more, or can't.
    func writabilityChanged()
}

extension LiveWriter: LiveSessionWriter {}
extension LiveStateWriter: LiveSessionWriter {}

/// A live connection's logic on its ``LiveSocket`` — ``LiveSession`` for a document,
/// ``PaletteSession``, ``GameSession`` — each with its socket's and its task's state as a
/// ``LiveInbox`` under its lock.
///
/// The socket's side is the same for all and written once here: a message is kept in the inbox
/// and starts a task if none works (or the socket stops reading until the task is done); a
/// closing socket stops the writer and drops what waits; once the socket has closed and no task
/// is left, the session finishes, exactly once. Each session says how it opens, how its task
/// applies what waits, and what it lets go of.
protocol LiveSocketSession: LiveSocketListener {
    associatedtype Writer: LiveSessionWriter

    var socket: LiveSocket.Handle { get }
    var writer: Writer { get }

    /// Runs `body` on the inbox, under the session's lock.
    func withInbox<Result: Sendable>(_ body: (inout LiveInbox) -> Result) -> Result
    /// Opens the connection (who may, and what the window is sent first), in the first task.
    func opening() async
    /// Applies what waits in the inbox until nothing is left; then reads the socket again, or
    /// finishes if it closed meanwhile (``LiveInbox/next(ready:)``).
    func work() async
    /// Lets go of everything the connection held; called once.
    func finish() async
}

extension LiveSocketSession {
    /// Starts the first task: the opening, then whatever came meanwhile.
    func open() {
        Task {
            await opening()
            await work()
        }
    }

    func received(_ text: String?) -> Bool {
        withInbox { $0.received(text) }.keepsReading { Task { await work() } }
    }

    func closing() {
        withInbox { $0.closing() }
        writer.stop()
    }

    func closed() {
        let finish = withInbox { $0.closed() }
        writer.stop()
        if finish { Task { await self.finish() } }
    }

    func writabilityChanged() {
        writer.writabilityChanged()
    }

    /// Closes with `code`: nothing more the window sent is applied, even before the socket has
    /// sent the close.
    func close(_ code: LiveCloseCode, reason: String) {
        withInbox { $0.closing() }
        socket.close(.unknown(code.rawValue), reason: reason)
    }

    /// Closes because what the window asked for couldn't be served: 4503, to come back soon (the
    /// database is away, the document's copy closed), or 1011 when what is stored can't be read.
    func close(failing error: any Error) {
        if case StoreError.corrupt = error {
            close(.unreadable, reason: "The server can't read what is stored.")
        } else {
            close(.documentClosed, reason: "Try again.")
        }
    }
}
