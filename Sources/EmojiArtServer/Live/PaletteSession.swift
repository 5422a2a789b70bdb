import EmojiArtLive
import EmojiArtWire
import Synchronization

/// One window following its palettes (``PaletteChannel``): the connection's logic between its
/// ``LiveSocket`` and a ``PaletteLibrary``, with no task while it is idle.
///
/// A short task opens it — whose palettes, then the list now and every later one, handed by the
/// library straight to the connection's ``LiveStateWriter``. Nothing the window sends is
/// applied. Once the socket has closed and the opening is done, the library is let go of.
final class PaletteSession: LiveSocketSession, Sendable {
    private struct State: Sendable {
        /// The socket's state and the opening task's (``LiveInbox``): no message is kept or
        /// starts a task here.
        var inbox = LiveInbox()
        var following: (library: PaletteLibrary, id: UInt64)?
    }

    private let channel: PaletteChannel
    private let access: RequestAccess
    let socket: LiveSocket.Handle
    let writer: LiveStateWriter
    private let finished: @Sendable () -> Void
    private let state = Mutex(State())

    init(
        channel: PaletteChannel, access: RequestAccess, socket: LiveSocket.Handle, writer: LiveStateWriter,
        finished: @escaping @Sendable () -> Void
    ) {
        self.channel = channel
        self.access = access
        self.socket = socket
        self.writer = writer
        self.finished = finished
    }

    func withInbox<Result: Sendable>(_ body: (inout LiveInbox) -> Result) -> Result {
        state.withLock { body(&$0.inbox) }
    }

    // MARK: - The socket's side

    /// The window is sent the palettes; what it sends is dropped, and starts no task.
    func received(_ text: String?) -> Bool { true }

    // MARK: - Opening

    func opening() async {
        guard access.isSomeone else { return close(.unauthorized, reason: "Sign in.") }
        let library = await channel.library(for: access)
        let writer = writer
        let id: UInt64
        do {
            id = try await library.follow { writer.send(LiveMessages.palettes($0)) }
        } catch {
            channel.logger.debug("palette connection ended: \(error)")
            return close(failing: error)
        }
        state.withLock { $0.following = (library, id) }
    }

    /// The opening's task is the only one (nothing the window sends is kept): once it is done,
    /// the connection finishes if the socket closed meanwhile.
    func work() async {
        if case .rest(_, finish: true) = withInbox({ $0.next() }) { await finish() }
    }

    // MARK: - Ending

    /// Stops following the palettes; the connection has let go of everything.
    func finish() async {
        let following = state.withLock { state in
            defer { state.following = nil }
            return state.following
        }
        if let following { following.library.unfollow(following.id) }
        finished()
    }
}
