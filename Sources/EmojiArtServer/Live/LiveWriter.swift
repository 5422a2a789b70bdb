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
/// Items delivered before ``start(sentVersion:opening:first:)`` are held and go out after what it
/// sends; a window revoked before it is sent nothing of it, only the close. A window that stops
/// reading lets its unwritten frames pile up; past `limit` frames or ``limitBytes`` it is dropped:
/// ``deliver(_:)`` answers false, so the document forgets it, and the connection closes with 4408.
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

    /// Where the writing is in its life.
    enum Phase: Sendable, Equatable {
        /// Before the opening: what comes is held, to go out after it.
        case holding
        /// What comes is queued and written.
        case writing
        /// Told to end: nothing more is queued; what is still goes out, then the ending is
        /// handed over.
        case ending(Ending)
        /// The ending has been handed over: the connection closes with it.
        case ended
        /// Stopped without a word (the connection is closing for another reason): nothing more
        /// is written, and there is nothing to close with.
        case stopped

        /// Whether what comes is still taken.
        var takes: Bool { self == .holding || self == .writing }

        /// Ends the writing with `ending`, unless it is already ending or stopped.
        mutating func end(_ ending: Ending) {
            if takes { self = .ending(ending) }
        }

        /// The ending to hand over, once: after it, ``ended``.
        mutating func handOver() -> Ending? {
            guard case .ending(let ending) = self else { return nil }
            self = .ended
            return ending
        }
    }

    /// The snapshot a window is sent first, while it is being written.
    enum Snapshot: Sendable {
        case none
        /// None of it is written yet.
        case unwritten(ByteBuffer)
        /// Its first fragments are out; the rest must follow before any other message.
        case partlyWritten(rest: ByteBuffer)

        /// What is left to write, and whether its first fragment is out.
        var left: (bytes: ByteBuffer, begun: Bool)? {
            switch self {
            case .none: nil
            case .unwritten(let bytes): (bytes, false)
            case .partlyWritten(let rest): (rest, true)
            }
        }
    }

    private struct State: Sendable {
        var phase = Phase.holding
        var outbox: LiveOutbox
        /// What came before the opening.
        var held: [LiveOutbox.Item] = []
        var snapshot = Snapshot.none
        /// The window's own texts to go before the snapshot (its role).
        var preface: [String] = []
        /// Texts waiting for the event loop.
        var queue: [String] = []
        /// Frames and bytes queued or handed to the channel and not yet written to the socket.
        var pendingFrames = 0
        var pendingBytes = 0
        /// Whether the event loop has been asked to write already (it writes all there is then).
        var drainScheduled = false
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
            switch state.phase {
            case .writing:
                Self.queue(item, in: &state, limit: limit)
            case .holding:
                state.held.append(item)
                guard state.held.count > limit else { return (true, false) }
                state.held = []
                state.phase.end(Self.fellBehind)
            case .ending, .ended, .stopped:
                return (false, false)
            }
            return (state.phase.takes, Self.claimDrain(&state))
        }
        if schedule { channel.eventLoop.execute { self.drain() } }
        return accepted
    }

    /// The window is sent `first` (messages of its own: its role), then `opening`, which brings
    /// it to `version`; what was held goes out after them, then whatever comes. A window whose
    /// writing ended before (revoked while it opened) is sent none of it: only the close.
    func start(sentVersion version: Int, opening: Opening, first own: [String] = []) {
        let schedule: Bool = state.withLock { state in
            guard state.phase != .stopped else { return false }
            if state.phase == .holding { state.phase = .writing }
            guard state.phase.takes else {
                state.held = []
                return Self.claimDrain(&state)
            }
            state.outbox = LiveOutbox(sentVersion: version)
            let added: [String]
            switch opening {
            case .snapshot(let buffer):
                state.snapshot = .unwritten(buffer)
                state.preface = own
                added = own
            case .messages(let texts):
                added = own + texts
                state.queue += added
            }
            for text in added {
                state.pendingFrames += 1
                state.pendingBytes += text.utf8.count
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
            guard state.phase.takes else { return false }
            state.phase.end(Ending(code: code, reason: reason))
            return Self.claimDrain(&state)
        }
        if schedule { channel.eventLoop.execute { self.drain() } }
    }

    /// Stops writing without a word: the connection is closing for another reason.
    func stop() {
        state.withLock { state in
            state.phase = .stopped
            state.queue = []
            state.held = []
            state.snapshot = .none
        }
    }

    /// True once the writing has ended or stopped: the connection is closing.
    var isEnding: Bool { state.withLock { !$0.phase.takes } }

    /// On the event loop: the socket can take more (or can't); a snapshot being written goes on.
    func writabilityChanged() {
        guard channel.isWritable else { return }
        let schedule = state.withLock { state in
            if case .none = state.snapshot { return false }
            return Self.claimDrain(&state)
        }
        if schedule { drain() }
    }

    private static let fellBehind = Ending(code: .fellBehind, reason: "Too far behind; reconnect.")

    private static func queue(_ item: LiveOutbox.Item, in state: inout State, limit: Int) {
        for write in state.outbox.receive(item) where state.phase.takes {
            switch write {
            case .text(let text):
                state.queue.append(text)
                state.pendingFrames += 1
                state.pendingBytes += text.utf8.count
            case .close(let code, let reason):
                state.phase.end(Ending(code: code, reason: reason))
            }
        }
        if state.phase.takes, state.pendingFrames > limit || state.pendingBytes > limitBytes {
            // The window stopped reading: what it has not been sent is dropped with it.
            state.queue = []
            state.phase.end(fellBehind)
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
        let taken = state.withLock { state -> (snapshot: Snapshot, texts: [String], ending: Ending?) in
            state.drainScheduled = false
            if !state.phase.takes {
                // A close may come between a message's fragments, but no other message: once the
                // writing ends, the rest of a snapshot begun goes with what was queued after it,
                // and one not begun needn't go out at all.
                if case .partlyWritten = state.snapshot { state.queue = [] }
                state.snapshot = .none
                state.preface = []
            }
            let snapshot = state.snapshot
            guard case .none = snapshot else {
                // What is queued waits for the snapshot; its preface goes before it.
                state.snapshot = .none
                defer { state.preface = [] }
                return (snapshot, state.preface, nil)
            }
            defer { state.queue = [] }
            return (.none, state.queue, state.phase.handOver())
        }
        if case (var rest, var begun)? = taken.snapshot.left {
            write(taken.texts)
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
                guard state.phase != .stopped else { return false }
                if !finished {
                    state.snapshot = begun ? .partlyWritten(rest: rest) : .unwritten(rest)
                    // The rest after the event loop's other work if the socket takes more, else once
                    // it can; an ending that came meanwhile at once.
                    return !state.phase.takes || writable ? Self.claimDrain(&state) : false
                }
                // Finished: what was queued meanwhile goes now.
                return Self.claimDrain(&state)
            }
            if again { channel.eventLoop.execute { self.drain() } }
            return
        }
        write(taken.texts)
        if let ending = taken.ending { ended(ending) }
    }

    /// Writes `texts` as frames with one flush; they stop counting as pending once written.
    private func write(_ texts: [String]) {
        guard !texts.isEmpty else { return }
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

    private static func frame(_ text: String) -> WebSocketFrame {
        WebSocketFrame(fin: true, opcode: .text, data: ByteBuffer(string: text))
    }
}
