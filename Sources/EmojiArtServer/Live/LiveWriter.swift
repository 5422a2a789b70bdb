import EmojiArtWire
import NIOCore
import NIOWebSocket
import Synchronization

/// What a live connection writes: what the window is sent first (its snapshot, or the changes
/// it missed), then the document's events and the window's replies in the order ``LiveOutbox``
/// says — written straight into the socket's channel on its event loop; no task waits for
/// them. Whatever arrives while a batch is on its way goes out in the next one, with one flush
/// for all of it, so a window that is sent many changes at once costs one system call, not one
/// each. The text is turned into frames there, on the event loop, not on the document's
/// executor that hands it over.
///
/// A snapshot goes out in fragments of at most ``fragmentBytes``, as the socket can take them
/// (``writabilityChanged()``): a 7 MB snapshot sent to 200 windows at once takes its turns with
/// everyone else's requests on the event loops, and a window that doesn't read stops being
/// written to once its socket is full. The fragments are slices of the one shared buffer.
///
/// Items delivered before ``start(sentVersion:opening:)`` are held and go out after what it
/// sends. A window that stops reading lets its unwritten frames pile up; past `limit` frames or
/// ``limitBytes`` it is dropped: ``deliver(_:)`` answers false, so the document forgets it, and
/// the connection closes with 4408.
final class LiveWriter: Sendable {
    /// Why the writing ended: the connection closes with this code and reason.
    struct Ending: Sendable, Equatable {
        var code: LiveCloseCode
        var reason: String
    }

    /// What the window is sent before anything else.
    enum Opening: Sendable {
        /// The whole document, as one text message's payload.
        case snapshot(ByteBuffer)
        /// Messages (the changes it missed, then `synced`).
        case messages([String])
    }

    /// Bytes a window may have unwritten before it is dropped.
    static let limitBytes = 8 * 1024 * 1024
    /// Longest fragment a snapshot is written in.
    static let fragmentBytes = 64 * 1024
    /// Fragments written to one window before the event loop gets to its other work: 200 windows
    /// opening a big document at once would otherwise each be written as much as their sockets
    /// take (1 MB) in one go, and every other request on that event loop would wait for all of it.
    static let fragmentsPerTurn = 2

    private struct State: Sendable {
        var outbox: LiveOutbox
        var started = false
        var held: [LiveOutbox.Item] = []
        /// What of the snapshot is still to be written, and whether some of it already was.
        var snapshot: ByteBuffer?
        var snapshotBegun = false
        /// Texts waiting for the event loop.
        var queue: [String] = []
        /// Frames and bytes queued or handed to the channel and not yet written to the socket.
        var pendingFrames = 0
        var pendingBytes = 0
        var drainScheduled = false
        /// Set once: after it nothing more is queued.
        var ending: Ending?
        /// Set once the ending has been handed over.
        var ended = false
        /// Ended by ``stop()``: nothing to close with.
        var stopped = false
    }

    private let channel: any Channel
    private let limit: Int
    private let ended: @Sendable (Ending) -> Void
    private let state: Mutex<State>

    /// - Parameter ended: called on the event loop once the writing has ended with a close code,
    ///   after everything before it is in the channel: the connection closes with it.
    init(channel: any Channel, limit: Int, ended: @escaping @Sendable (Ending) -> Void) {
        self.channel = channel
        self.limit = limit
        self.ended = ended
        state = Mutex(State(outbox: LiveOutbox(sentVersion: 0)))
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

    /// The window is sent `opening`, which brings it to `version`; what was held goes out after
    /// it, then whatever comes.
    func start(sentVersion version: Int, opening: Opening) {
        let schedule: Bool = state.withLock { state in
            guard !state.stopped else { return false }
            state.started = true
            state.outbox = LiveOutbox(sentVersion: version)
            switch opening {
            case .snapshot(let buffer): state.snapshot = buffer
            case .messages(let texts):
                for text in texts {
                    state.queue.append(text)
                    state.pendingFrames += 1
                    state.pendingBytes += text.utf8.count
                }
            }
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

    /// Stops writing without a word: the connection is closing for another reason.
    func stop() {
        state.withLock { state in
            state.stopped = true
            state.queue = []
            state.held = []
            state.snapshot = nil
        }
    }

    /// True once the writing has ended or stopped: the connection is closing.
    var isEnding: Bool { state.withLock { $0.ending != nil || $0.stopped } }

    /// On the event loop: the socket can take more (or can't); a snapshot being written goes on.
    func writabilityChanged() {
        guard channel.isWritable else { return }
        let schedule = state.withLock { state in state.snapshot != nil ? Self.claimDrain(&state) : false }
        if schedule { drain() }
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

    /// On the event loop: writes the snapshot as far as the socket takes it, then what is
    /// queued, flushes once, and hands over an ending.
    private func drain() {
        let taken = state.withLock { state -> (snapshot: ByteBuffer?, begun: Bool, texts: [String], ending: Ending?) in
            state.drainScheduled = false
            if state.ending != nil, state.snapshot != nil {
                // A close may come between a message's fragments; the rest of the snapshot needn't,
                // nor may another message once some of it is out.
                state.snapshot = nil
                if state.snapshotBegun { state.queue = [] }
            }
            let snapshot = state.snapshot
            state.snapshot = nil
            // What is queued waits for the snapshot.
            let texts = snapshot == nil ? state.queue : []
            if snapshot == nil { state.queue = [] }
            guard snapshot == nil, let ending = state.ending, !state.ended, !state.stopped else {
                return (snapshot, state.snapshotBegun, texts, nil)
            }
            state.ended = true
            return (nil, state.snapshotBegun, texts, ending)
        }
        if var rest = taken.snapshot {
            var begun = taken.begun
            var turn = 0
            while rest.readableBytes > 0, channel.isWritable, turn < Self.fragmentsPerTurn {
                let fragment = rest.readSlice(length: min(Self.fragmentBytes, rest.readableBytes))!
                channel.writeAndFlush(
                    WebSocketFrame(
                        fin: rest.readableBytes == 0, opcode: begun ? .continuation : .text, data: fragment),
                    promise: nil)
                begun = true
                turn += 1
            }
            let (finished, writable) = (rest.readableBytes == 0, channel.isWritable)
            let again = state.withLock { state -> Bool in
                state.snapshotBegun = begun
                guard !state.stopped else { return false }
                if !finished {
                    state.snapshot = rest
                    // The rest after the event loop's other work if the socket takes more, else once
                    // it can; an ending that came meanwhile at once.
                    return state.ending != nil || writable ? Self.claimDrain(&state) : false
                }
                // Finished: what was queued meanwhile goes now.
                return Self.claimDrain(&state)
            }
            if again { channel.eventLoop.execute { self.drain() } }
            return
        }
        if !taken.texts.isEmpty {
            let texts = taken.texts
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
        if let ending = taken.ending { ended(ending) }
    }

    private static func frame(_ text: String) -> WebSocketFrame {
        WebSocketFrame(fin: true, opcode: .text, data: ByteBuffer(string: text))
    }
}
