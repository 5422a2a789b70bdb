import EmojiArtGame
import EmojiArtWire
import Synchronization

/// One window playing one Find or Lose game (``GameChannel``): the connection's logic between
/// its ``LiveSocket`` and a ``FindOrLoseSession``, with no task while it is idle.
///
/// A short task opens it (the game's state now, and every later one, handed by the game straight
/// to the connection's ``LiveStateWriter``); then a task applies the window's intents one at a
/// time, in order, and ends when none is left — the socket is not read meanwhile. Once the
/// socket has closed and no task is left, the game is ended (``finish()``).
final class GameSession: LiveSocketSession, Sendable {
    private struct State: Sendable {
        /// The socket's state, the task's and the intents waiting: ``LiveInbox``.
        var inbox = LiveInbox()
        var following: UInt64?
        /// The window's intent limit (``GameChannel/intents``): what it may still send now.
        var rate: TokenBucket
    }

    private let channel: GameChannel
    private let access: RequestAccess
    let socket: LiveSocket.Handle
    let writer: LiveStateWriter
    private let finished: @Sendable () -> Void
    private let game: FindOrLoseSession<ContinuousClock>
    private let state: Mutex<State>
    private let clock = MonotonicSeconds()

    init(
        channel: GameChannel, access: RequestAccess, socket: LiveSocket.Handle, writer: LiveStateWriter,
        finished: @escaping @Sendable () -> Void
    ) {
        self.channel = channel
        self.access = access
        self.socket = socket
        self.writer = writer
        self.finished = finished
        game = FindOrLoseSession(source: channel.source, clock: ContinuousClock())
        state = Mutex(State(rate: TokenBucket(GameChannel.intents, now: clock.now)))
    }

    func withInbox<Result: Sendable>(_ body: (inout LiveInbox) -> Result) -> Result {
        state.withLock { body(&$0.inbox) }
    }

    // MARK: - Opening

    /// Only people with an account play; they are sent the game's state, then every change.
    func opening() async {
        guard access.requester.userID != nil else { return close(.unauthorized, reason: "Sign in to play.") }
        let writer = writer
        let id = await game.follow { writer.send(LiveMessages.game($0)) }
        state.withLock { $0.following = id }
    }

    // MARK: - The window's intents

    /// Applies the intents that came, in order, until none is left; then the socket is read
    /// again, or, if it closed meanwhile, the connection finishes.
    func work() async {
        while true {
            switch state.withLock({ $0.inbox.next() }) {
            case .apply(let batch):
                for message in batch {
                    guard state.withLock({ $0.inbox.isOpen }) else { break }
                    await apply(message)
                }
            case .rest(let resume, let finish):
                if resume { socket.resumeReading() }
                if finish { await self.finish() }
                return
            }
        }
    }

    private func apply(_ message: String?) async {
        let now = clock.now
        guard state.withLock({ $0.rate.take(now: now) }) else {
            return close(.tooManyMessages, reason: "Too many messages; slow down.")
        }
        let intent: GameIntent
        do throws(GameIntent.Unreadable) {
            guard let text = message else { throw GameIntent.Unreadable(reason: "Send text.") }
            intent = try GameIntent(json: text)
        } catch {
            return close(.badMessage, reason: error.reason)
        }
        switch intent {
        case .play: await game.play()
        case .stop: await game.stop()
        case .tap(let tile): await game.tap(tile)
        }
    }

    // MARK: - Ending

    /// Ends the game: nothing more is fetched or sent.
    func finish() async {
        let following = state.withLock { state in
            defer { state.following = nil }
            return state.following
        }
        if let following { game.unfollow(following) }
        await game.close()
        finished()
    }
}
