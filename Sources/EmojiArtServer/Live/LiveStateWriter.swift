import NIOCore
import NIOWebSocket
import Synchronization

/// What a palette or game connection writes: whole states (the palettes, the game), each one
/// text message, written straight into the socket's channel on its event loop; no task waits
/// for them. States handed over while a write is on its way go out together, with one flush.
///
/// Each state supersedes the ones before it, so a window that doesn't keep up isn't sent the
/// backlog: only the newest `waiting` states wait, while the socket can't take more, and go out
/// once it can (``writabilityChanged()``). That is what the palettes' and the game's broadcasts
/// keep for a slow stream subscriber too (`Broadcaster.BufferPolicy.newest`).
final class LiveStateWriter: Sendable {
    private struct State: Sendable {
        /// Texts waiting for the event loop, or for the socket to take more.
        var queue: [String] = []
        var drainScheduled = false
        /// Set once the connection is closing: nothing more is written.
        var stopped = false
    }

    private let channel: any Channel
    private let waiting: Int
    private let state = Mutex(State())

    /// - Parameter waiting: how many of the newest states wait while the socket is full.
    init(channel: any Channel, waiting: Int) {
        self.channel = channel
        self.waiting = max(1, waiting)
    }

    /// Takes a state for the window, from any thread; false once the writer has stopped.
    @discardableResult
    func send(_ text: String) -> Bool {
        let (accepted, schedule) = state.withLock { state -> (Bool, Bool) in
            guard !state.stopped else { return (false, false) }
            state.queue.append(text)
            if state.queue.count > waiting { state.queue.removeFirst(state.queue.count - waiting) }
            guard !state.drainScheduled else { return (true, false) }
            state.drainScheduled = true
            return (true, true)
        }
        if schedule { channel.eventLoop.execute { self.drain() } }
        return accepted
    }

    /// Stops writing: the connection is closing.
    func stop() {
        state.withLock { state in
            state.stopped = true
            state.queue = []
        }
    }

    /// On the event loop: the socket can take more (or can't); what waits goes out.
    func writabilityChanged() {
        if channel.isWritable { drain() }
    }

    /// On the event loop: writes what is queued, if the socket takes it, with one flush.
    private func drain() {
        let writable = channel.isWritable
        let texts = state.withLock { state -> [String] in
            state.drainScheduled = false
            guard writable, !state.stopped else { return [] }
            defer { state.queue = [] }
            return state.queue
        }
        guard let last = texts.last else { return }
        for text in texts.dropLast() { channel.write(Self.frame(text), promise: nil) }
        channel.writeAndFlush(Self.frame(last), promise: nil)
    }

    private static func frame(_ text: String) -> WebSocketFrame {
        WebSocketFrame(fin: true, opcode: .text, data: ByteBuffer(string: text))
    }
}
