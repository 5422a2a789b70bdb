import NIOCore
import NIOWebSocket

/// What a ``LiveSocket`` tells the connection it serves, on the connection's event loop.
protocol LiveSocketListener: AnyObject, Sendable {
    /// A whole message from the window: its text, or nil for a binary one. False asks the
    /// socket to stop reading until ``LiveSocket/Handle/resumeReading()``.
    func received(_ text: String?) -> Bool
    /// The connection is closing (a close frame went out or came in): nothing more is read or
    /// written for the window.
    func closing()
    /// The socket has closed.
    func closed()
    /// The socket can take more, or can't.
    func writabilityChanged()
}

/// The WebSocket protocol of a live connection — a document, the palettes, a game — run on its
/// event loop with no task of its own: an idle connection costs its channel and a few small
/// objects, not a suspended task's stack (issue #21, "Memory"; docs/LIVE.md).
///
/// It sits last in the pipeline, after NIO's frame decoder and encoder, and does what a
/// WebSocket endpoint must (RFC 6455):
/// - joins a message's fragments, up to ``Configuration/maximumMessageBytes`` (1009 past it),
///   checks that text is UTF-8 (1007), and hands each whole message to its listener;
/// - answers pings, pings an idle window every ``Configuration/pingInterval`` and closes one
///   that hasn't answered the last ping by the next;
/// - closes: on a broken frame (1002), when asked (``close(_:reason:)``) or when the window
///   asks; a close it started waits ``Configuration/closeTimeout`` for the window's answer.
///   Nothing is written after a close frame, whoever writes it.
/// - stops reading while its listener is busy with earlier messages, so a window that sends
///   faster than its requests are applied waits, unread.
final class LiveSocket: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    struct Configuration: Sendable {
        /// Longest message a window may send, its fragments together.
        var maximumMessageBytes: Int
        /// How long a close this side starts waits for the window's close before the socket closes.
        var closeTimeout: TimeAmount
        /// How often a window is pinged.
        var pingInterval = TimeAmount.seconds(30)
    }

    /// A reference to the socket that other threads may hold: each call hops to its event loop.
    /// It doesn't keep the socket: a closed socket's session lets go of it.
    struct Handle: Sendable {
        let eventLoop: any EventLoop
        private let socket: NIOLoopBound<WeakSocket>

        /// On the socket's event loop.
        init(_ socket: LiveSocket, eventLoop: any EventLoop) {
            self.eventLoop = eventLoop
            self.socket = NIOLoopBound(WeakSocket(socket), eventLoop: eventLoop)
        }

        func close(_ code: WebSocketErrorCode, reason: String) {
            eventLoop.execute { socket.value.socket?.close(code, reason: reason) }
        }

        func resumeReading() {
            eventLoop.execute { socket.value.socket?.resumeReading() }
        }
    }

    private enum State { case open, closing, closed }

    private let configuration: Configuration
    /// Set before the socket joins the pipeline.
    var listener: (any LiveSocketListener)?
    private var context: ChannelHandlerContext?
    private var state = State.open
    /// The fragments of the message being received, and whether it is text.
    private var message: ByteBuffer?
    private var messageIsText = true
    private var readingPaused = false
    private var readPending = false
    /// The last ping's payload, until the window answers it.
    private var unansweredPing: ByteBuffer?
    private var pinger: RepeatedTask?
    private var closeDeadline: Scheduled<Void>?

    init(configuration: Configuration) {
        self.configuration = configuration
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        let socket = NIOLoopBound(WeakSocket(self), eventLoop: context.eventLoop)
        pinger = context.eventLoop.scheduleRepeatedTask(
            initialDelay: configuration.pingInterval, delay: configuration.pingInterval
        ) { _ in socket.value.socket?.ping() }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        ended()
        self.context = nil
    }

    func channelInactive(context: ChannelHandlerContext) {
        ended()
        context.fireChannelInactive()
    }

    /// The window's side of the socket closed (the server allows half-closed connections): it
    /// can't send a close frame any more, so the socket closes now.
    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? ChannelEvent, event == .inputClosed {
            context.close(promise: nil)
        }
        context.fireUserInboundEventTriggered(event)
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        listener?.writabilityChanged()
        context.fireChannelWritabilityChanged()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        // After this side's close, only the window's close matters.
        guard state == .open || frame.opcode == .connectionClose else { return }
        // No extension is negotiated, so no reserved bit may be set.
        guard frame.reservedBits.isEmpty else { return close(.protocolError, reason: "Reserved bits set.") }
        switch frame.opcode {
        case .text, .binary:
            guard message == nil else { return close(.protocolError, reason: "A message began inside another.") }
            messageIsText = frame.opcode == .text
            message = context.channel.allocator.buffer(capacity: frame.length)
            append(frame)
        case .continuation:
            guard message != nil else { return close(.protocolError, reason: "A continuation with no message.") }
            append(frame)
        case .ping:
            guard frame.fin else { return close(.protocolError, reason: "A fragmented ping.") }
            context.writeAndFlush(
                wrapOutboundOut(WebSocketFrame(fin: true, opcode: .pong, data: frame.unmaskedData)), promise: nil)
        case .pong:
            if frame.unmaskedData == unansweredPing { unansweredPing = nil }
        case .connectionClose:
            receivedClose(frame)
        default:
            close(.protocolError, reason: "An unknown opcode.")
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // The frame decoder's: a frame over the limit, or a broken control frame.
        if let error = error as? NIOWebSocketError {
            close(
                error == .invalidFrameLength ? .messageTooLarge : .protocolError,
                reason: error == .invalidFrameLength ? "Message too large." : "Not a valid frame.")
        } else {
            context.close(promise: nil)
        }
    }

    /// Holds the channel's reads while the listener is busy.
    func read(context: ChannelHandlerContext) {
        if readingPaused {
            readPending = true
        } else {
            context.read()
        }
    }

    /// Drops what the connection writes once a close frame has gone out.
    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard state == .open else {
            promise?.fail(ChannelError.outputClosed)
            return
        }
        context.write(data, promise: promise)
    }

    // MARK: - Reading

    private func append(_ frame: WebSocketFrame) {
        var data = frame.unmaskedData
        message!.writeBuffer(&data)
        guard message!.readableBytes <= configuration.maximumMessageBytes else {
            return close(.messageTooLarge, reason: "Message too large.")
        }
        guard frame.fin, let whole = message else { return }
        message = nil
        var text: String?
        if messageIsText {
            text = String(validating: whole.readableBytesView, as: UTF8.self)
            guard text != nil else { return close(.dataInconsistentWithMessage, reason: "Text that is not UTF-8.") }
        }
        if listener?.received(text) == false { readingPaused = true }
    }

    func resumeReading() {
        readingPaused = false
        guard readPending, let context else { return }
        readPending = false
        context.read()
    }

    // MARK: - Closing

    /// Closes with `code`: the close frame is the last thing written, and the socket closes once
    /// the window answers or ``Configuration/closeTimeout`` has passed.
    func close(_ code: WebSocketErrorCode, reason: String) {
        guard state == .open, let context else { return }
        state = .closing
        message = nil
        listener?.closing()
        context.writeAndFlush(wrapOutboundOut(Self.closeFrame(code, reason: reason, context: context)), promise: nil)
        let channel = context.channel
        closeDeadline = context.eventLoop.scheduleTask(in: configuration.closeTimeout) { channel.close(promise: nil) }
        // The window's close is still to be read.
        resumeReading()
    }

    private func receivedClose(_ frame: WebSocketFrame) {
        guard let context else { return }
        guard state == .open else {
            // The answer to this side's close: the closing handshake is done.
            context.close(promise: nil)
            return
        }
        state = .closing
        message = nil
        listener?.closing()
        // Echo the window's code (RFC 6455 §5.5.1), or say what was wrong with its close.
        var data = frame.unmaskedData
        let code: WebSocketErrorCode
        switch data.readableBytes {
        case 0: code = .normalClosure
        case 1: code = .protocolError
        default:
            let received = data.readWebSocketErrorCode() ?? .protocolError
            if String(validating: data.readableBytesView, as: UTF8.self) == nil {
                code = .dataInconsistentWithMessage
            } else {
                code = Self.mayBeSent(received) ? received : .protocolError
            }
        }
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(Self.closeFrame(code, reason: "", context: context))).whenComplete { _ in
            channel.close(promise: nil)
        }
        // A window that doesn't read its answer doesn't hold the connection either.
        closeDeadline = context.eventLoop.scheduleTask(in: configuration.closeTimeout) { channel.close(promise: nil) }
    }

    /// Codes a close frame may carry (RFC 6455 §7.4).
    private static func mayBeSent(_ code: WebSocketErrorCode) -> Bool {
        let number = UInt16(webSocketErrorCode: code)
        return [1000, 1001, 1002, 1003, 1007, 1008, 1009, 1010, 1011].contains(number) || (3000...4999).contains(number)
    }

    private static func closeFrame(_ code: WebSocketErrorCode, reason: String, context: ChannelHandlerContext)
        -> WebSocketFrame
    {
        // A control frame's payload is at most 125 bytes: the code's two and 123 of reason.
        var reason = Substring(reason)
        while reason.utf8.count > 123 { reason.removeLast() }
        var data = context.channel.allocator.buffer(capacity: 2 + reason.utf8.count)
        data.write(webSocketErrorCode: code)
        data.writeString(String(reason))
        return WebSocketFrame(fin: true, opcode: .connectionClose, data: data)
    }

    private func ping() {
        guard state == .open, let context else { return }
        if unansweredPing != nil {
            // A window whose reads are held (its earlier requests are still being applied) can't
            // be heard answering.
            guard readingPaused else { return close(.goingAway, reason: "Ping timeout.") }
            return
        }
        var data = context.channel.allocator.buffer(capacity: 8)
        data.writeInteger(UInt64.random(in: .min ... .max))
        unansweredPing = data
        context.writeAndFlush(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .ping, data: data)), promise: nil)
    }

    private func ended() {
        guard state != .closed else { return }
        state = .closed
        pinger?.cancel()
        pinger = nil
        closeDeadline?.cancel()
        closeDeadline = nil
        listener?.closed()
        // The session holds a handle to this socket, not the socket; this lets go of the session.
        listener = nil
    }
}

/// A socket held without keeping it.
private final class WeakSocket {
    weak var socket: LiveSocket?
    init(_ socket: LiveSocket) { self.socket = socket }
}
