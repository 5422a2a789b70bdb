/// Where a live connection is in its life, as a value (``LiveSession``, ``GameSession`` and
/// ``PaletteSession`` keep it under their locks): its socket open, closing or closed, and its
/// work — a task opening it or applying the window's messages, or none — until what it held is
/// let go. Each event is one decision, so a message that comes
/// while the task is stopping is either taken by it or starts a task of its own, and the
/// connection finishes exactly once: after its socket closed, when no task is left.
struct LiveSessionPhase: Sendable, Equatable {
    enum Socket: Sendable, Equatable {
        /// Messages are read and applied.
        case open
        /// Closing (the window's close came, or we close): nothing more is applied.
        case closing
        /// Closed: once no task works, the connection finishes.
        case closed
    }

    enum Work: Sendable, Equatable {
        /// No task: the next message starts one.
        case idle
        /// A task opens the connection or applies messages; the socket is not read meanwhile.
        case working
        /// What the connection held is let go: nothing more happens.
        case finished
    }

    /// A task opens the connection first.
    private(set) var socket = Socket.open
    private(set) var work = Work.working

    /// Whether messages are still applied.
    var isOpen: Bool { socket == .open }

    enum Arrival: Sendable, Equatable {
        /// Keep it, and start a task to apply it; keep reading.
        case startTask
        /// Keep it for the working task; stop reading the socket until it is done.
        case queue
        /// The connection is closing: drop it (and keep reading, to see the close).
        case drop
    }

    /// A message came from the window.
    mutating func messageArrived() -> Arrival {
        guard socket == .open, work != .finished else { return .drop }
        guard work == .idle else { return .queue }
        work = .working
        return .startTask
    }

    /// The socket is closing, by either side: nothing more is applied.
    mutating func socketClosing() {
        if socket == .open { socket = .closing }
    }

    /// The socket closed: true if the connection finishes now (no task is working).
    mutating func socketClosed() -> Bool {
        socket = .closed
        return claimFinish()
    }

    /// The task found nothing more to apply and stops: whether to read the socket again, and
    /// whether the connection finishes now.
    mutating func taskStopped() -> (resumeReading: Bool, finish: Bool) {
        if work == .working { work = .idle }
        return (socket == .open, claimFinish())
    }

    private mutating func claimFinish() -> Bool {
        guard socket == .closed, work == .idle else { return false }
        work = .finished
        return true
    }
}

/// A connection's phase (``LiveSessionPhase``) and the window's messages waiting for its task,
/// as one value: what ``LiveSession`` and ``GameSession`` decide on each event of the socket and
/// of their task, under their lock. Messages are kept only while they may be applied: closing
/// drops them.
struct LiveInbox: Sendable, Equatable {
    private(set) var phase = LiveSessionPhase()
    private(set) var messages: [String?] = []

    /// Whether messages are still applied.
    var isOpen: Bool { phase.isOpen }

    /// A message came from the window: kept, unless the connection is closing.
    mutating func received(_ text: String?) -> LiveSessionPhase.Arrival {
        let arrival = phase.messageArrived()
        if arrival != .drop { messages.append(text) }
        return arrival
    }

    /// The socket is closing, by either side: what waits is dropped.
    mutating func closing() {
        phase.socketClosing()
        messages = []
    }

    /// The socket closed: true if the connection finishes now (no task is working).
    mutating func closed() -> Bool {
        messages = []
        return phase.socketClosed()
    }

    enum Next: Sendable, Equatable {
        /// Apply these, in order.
        case apply([String?])
        /// The task stops: whether to read the socket again, and whether the connection
        /// finishes now.
        case rest(resumeReading: Bool, finish: Bool)
    }

    /// The working task asks what next: every message waiting, if it may apply them now
    /// (`ready`: a document connection's is opened), or else it stops — one decision, so a
    /// message that comes meanwhile either is taken here or starts a task of its own.
    mutating func next(ready: Bool = true) -> Next {
        if phase.isOpen, ready, !messages.isEmpty {
            defer { messages = [] }
            return .apply(messages)
        }
        let (resume, finish) = phase.taskStopped()
        return .rest(resumeReading: resume, finish: finish)
    }
}

extension LiveSessionPhase.Arrival {
    /// What the socket does with the message: `start` a task if one must; false while a task
    /// is busy (the socket stops reading until it is done).
    func keepsReading(startingTask start: () -> Void) -> Bool {
        switch self {
        case .startTask:
            start()
            return true
        case .drop:
            return true
        case .queue:
            return false
        }
    }
}
