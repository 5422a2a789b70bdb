import EmojiArtWire
import NIOCore
import NIOWebSocket
import Synchronization

/// What a live connection writes once the window has its snapshot: the document's events and
/// the window's replies, in the order ``LiveOutbox`` says, written straight into the socket's
/// channel on its event loop — no task waits for them. Whatever arrives while a batch is on its
/// way goes out in the next one, with one flush for all of it, so a window that is sent many
/// changes at once costs one system call, not one each. The text is turned into frames there,
/// on the event loop, not on the document's executor that hands it over.
///
/// Items delivered before ``start(sentVersion:)`` (while the snapshot is being written through
/// the WebSocket layer) are held and go out first. A window that stops reading lets its
/// unwritten frames pile up; past `limit` frames or ``limitBytes`` it is dropped:
/// ``deliver(_:)`` answers false, so the document forgets it, the connection closes with 4408,
/// and if the window doesn't read even that, the socket is closed ``dropGrace`` later.
///
/// Nothing is written after a close frame, whoever sent it (``CloseGuard``).
final class LiveWriter: Sendable {
    /// Why the writing ended: the connection closes with this code and reason.
    struct Ending: Sendable, Equatable {
        var code: LiveCloseCode
        var reason: String
    }

    /// Bytes a window may have unwritten before it is dropped.
    static let limitBytes = 8 * 1024 * 1024
    /// How long a dropped window's close may wait for it to read before the socket is closed.
    static let dropGrace = TimeAmount.seconds(10)

    private struct State: Sendable {
        var outbox: LiveOutbox
        var started = false
        var held: [LiveOutbox.Item] = []
        /// Texts waiting for the event loop.
        var queue: [String] = []
        /// Frames and bytes queued or handed to the channel and not yet written to the socket.
        var pendingFrames = 0
        var pendingBytes = 0
        var drainScheduled = false
        /// Set once: after it nothing more is queued.
        var ending: Ending?
        /// Set once the frames before the ending are in the channel: the connection may close.
        var ended = false
        /// Ended by ``stop()``: nothing to close with.
        var stopped = false
        var waiter: CheckedContinuation<Ending?, Never>?
    }

    private let channel: any Channel
    private let limit: Int
    private let state: Mutex<State>

    init(channel: any Channel, limit: Int) {
        self.channel = channel
        self.limit = limit
        state = Mutex(State(outbox: LiveOutbox(sentVersion: 0)))
        CloseGuard.install(in: channel)
    }

    /// Takes something for the window; false once the window is no longer written to.
    func deliver(_ item: LiveOutbox.Item) -> Bool {
        let (accepted, schedule) = state.withLock { state -> (Bool, Bool) in
            guard state.ending == nil, !state.stopped else { return (false, false) }
            if state.started {
                Self.queue(item, in: &state, limit: limit)
            } else {
                state.held.append(item)
                if state.held.count > limit {
                    state.held = []
                    state.ending = Self.fellBehind
                }
            }
            let schedule = state.started || state.ending != nil ? Self.claimDrain(&state) : false
            return (state.ending == nil, schedule)
        }
        if schedule { channel.eventLoop.execute { self.drain() } }
        return accepted
    }

    /// The window has been sent the document at `version` (the snapshot, or the changes it
    /// missed): what was held goes out, then whatever comes.
    func start(sentVersion version: Int) {
        let schedule: Bool = state.withLock { state in
            state.started = true
            state.outbox = LiveOutbox(sentVersion: version)
            for item in state.held { Self.queue(item, in: &state, limit: limit) }
            state.held = []
            return Self.claimDrain(&state)
        }
        if schedule { channel.eventLoop.execute { self.drain() } }
    }

    /// Ends the writing with `code` (a revoked grant, say): what is queued is still written.
    func end(_ code: LiveCloseCode, reason: String) {
        let schedule: Bool = state.withLock { state in
            guard state.ending == nil, !state.stopped else { return false }
            state.ending = Ending(code: code, reason: reason)
            return Self.claimDrain(&state)
        }
        if schedule { channel.eventLoop.execute { self.drain() } }
    }

    /// Stops writing without a word: the connection is closing for another reason (the reader
    /// is about to close it, or already has).
    func stop() {
        let waiter = state.withLock { state -> CheckedContinuation<Ending?, Never>? in
            state.stopped = true
            state.queue = []
            state.held = []
            state.ended = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: nil)
    }

    /// Waits until the writing has ended and everything before the end is in the channel: the
    /// close code and reason to close with, or nil when ``stop()`` ended it (or the task was
    /// cancelled).
    func ending() async -> Ending? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let ready = state.withLock { state -> Ending?? in
                    if state.ended { return .some(state.stopped ? nil : state.ending) }
                    state.waiter = continuation
                    return .none
                }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            stop()
        }
    }

    private static let fellBehind = Ending(code: .fellBehind, reason: "Too far behind; reconnect.")

    private static func queue(_ item: LiveOutbox.Item, in state: inout State, limit: Int) {
        guard state.ending == nil, !state.stopped else { return }
        for write in state.outbox.receive(item) {
            switch write {
            case .text(let text):
                state.queue.append(text)
                state.pendingFrames += 1
                state.pendingBytes += text.utf8.count
            case .close(let code, let reason):
                state.ending = Ending(code: code, reason: reason)
            }
        }
        if state.ending == nil, state.pendingFrames > limit || state.pendingBytes > limitBytes {
            // The window stopped reading: what it has not been sent is dropped with it.
            state.queue = []
            state.ending = fellBehind
        }
    }

    private static func claimDrain(_ state: inout State) -> Bool {
        guard !state.drainScheduled else { return false }
        state.drainScheduled = true
        return true
    }

    /// On the event loop: writes what is queued, flushes once, and hands over an ending.
    private func drain() {
        let (texts, waiter, ending) = state.withLock {
            state -> ([String], CheckedContinuation<Ending?, Never>?, Ending?) in
            state.drainScheduled = false
            let texts = state.queue
            state.queue = []
            guard let ending = state.ending, !state.ended, !state.stopped else { return (texts, nil, nil) }
            state.ended = true
            defer { state.waiter = nil }
            return (texts, state.waiter, ending)
        }
        if !texts.isEmpty {
            let bytes = texts.reduce(0) { $0 + $1.utf8.count }
            for text in texts.dropLast() { channel.write(Self.frame(text), promise: nil) }
            let written = channel.eventLoop.makePromise(of: Void.self)
            written.futureResult.whenComplete { _ in
                self.state.withLock {
                    $0.pendingFrames -= texts.count
                    $0.pendingBytes -= bytes
                }
            }
            channel.writeAndFlush(Self.frame(texts[texts.count - 1]), promise: written)
        }
        guard let ending else { return }
        waiter?.resume(returning: ending)
        if ending == Self.fellBehind {
            // A window that doesn't read can't read its close either.
            channel.eventLoop.scheduleTask(in: Self.dropGrace) { [channel] in channel.close(promise: nil) }
        }
    }

    private static func frame(_ text: String) -> WebSocketFrame {
        WebSocketFrame(fin: true, opcode: .text, data: ByteBuffer(string: text))
    }
}

/// Drops any frame written after a close frame. Hummingbird's WebSocket layer writes the close
/// (the window's requests broke a rule, the window closed, the server is shutting down) and
/// ``LiveWriter`` writes everything else, each into the same channel from its own side; a
/// change written after the close would make the browser fail the connection (1006) instead of
/// reading the close code.
final class CloseGuard: ChannelOutboundHandler, RemovableChannelHandler {
    typealias OutboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    private var closed = false

    /// Puts a guard where every frame passes it: next to the frame encoder, on its writing side.
    static func install(in channel: any Channel) {
        channel.eventLoop.execute {
            let pipeline = channel.pipeline.syncOperations
            guard let encoder = try? pipeline.context(handlerType: WebSocketFrameEncoder.self) else { return }
            try? pipeline.addHandler(CloseGuard(), position: .after(encoder.handler))
        }
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard !closed else {
            promise?.fail(ChannelError.outputClosed)
            return
        }
        if unwrapOutboundIn(data).opcode == .connectionClose { closed = true }
        context.write(data, promise: promise)
    }
}
