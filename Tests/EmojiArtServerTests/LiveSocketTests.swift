import NIOCore
import NIOEmbedded
import NIOWebSocket
import Synchronization
import Testing

@testable import EmojiArtServer

/// ``LiveSocket`` on an embedded channel: messages joined from their fragments and checked,
/// the closes it starts and answers, pings, and reads held while its listener is busy.
@Suite struct LiveSocketTests {
    private final class Listener: LiveSocketListener {
        let messages = Mutex<[String?]>([])
        let events = Mutex<[String]>([])
        let busy = Mutex(false)

        func received(_ text: String?) -> Bool {
            messages.withLock { $0.append(text) }
            return !busy.withLock { $0 }
        }
        func closing() { events.withLock { $0.append("closing") } }
        func closed() { events.withLock { $0.append("closed") } }
        func writabilityChanged() {}
    }

    private func connected() throws -> (EmbeddedChannel, LiveSocket, Listener) {
        let channel = EmbeddedChannel()
        let socket = LiveSocket(configuration: .init(maximumMessageBytes: 16, closeTimeout: .seconds(3)))
        let listener = Listener()
        socket.listener = listener
        try channel.pipeline.syncOperations.addHandler(socket)
        _ = try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 9)).wait()
        return (channel, socket, listener)
    }

    /// The close frames and other frames written so far.
    private func written(_ channel: EmbeddedChannel) throws -> [WebSocketFrame] {
        var frames: [WebSocketFrame] = []
        while let frame = try channel.readOutbound(as: WebSocketFrame.self) { frames.append(frame) }
        return frames
    }

    private func closeCode(_ frame: WebSocketFrame) -> UInt16? {
        var data = frame.data
        guard frame.opcode == .connectionClose, let code = data.readWebSocketErrorCode() else { return nil }
        return UInt16(webSocketErrorCode: code)
    }

    @Test func fragmentsAreJoinedIntoOneMessage() throws {
        let (channel, _, listener) = try connected()
        try channel.writeInbound(unmasked(.text, "hel", fin: false))
        try channel.writeInbound(unmasked(.continuation, "lo", fin: false))
        try channel.writeInbound(unmasked(.ping, "p"))  // a control frame may come between fragments
        try channel.writeInbound(unmasked(.continuation, "!"))
        try channel.writeInbound(unmasked(.binary, "b"))
        #expect(listener.messages.withLock { $0 } == ["hello!", nil])
        let pong = try written(channel)
        #expect(pong.count == 1 && pong[0].opcode == .pong && String(buffer: pong[0].data) == "p")
    }

    static let brokenMessages: [([(String, WebSocketOpcode, Bool)], Int)] = [
        ([("x", .continuation, true)], 1002),  // a continuation with no message
        ([("12345678", .text, false), ("123456789", .continuation, true)], 1009),  // 17 bytes of 16
        ([("a", .text, false), ("b", .text, true)], 1002),  // a message inside another
    ]

    @Test(arguments: brokenMessages)
    func brokenMessagesCloseWithTheirCodes(frames: [(String, WebSocketOpcode, Bool)], code: Int) throws {
        let (channel, _, listener) = try connected()
        for (text, opcode, fin) in frames { try channel.writeInbound(unmasked(opcode, text, fin: fin)) }
        let sent = try written(channel)
        #expect(sent.count == 1 && closeCode(sent[0]).map(Int.init) == code)
        #expect(listener.messages.withLock { $0 }.isEmpty)
        #expect(listener.events.withLock { $0 } == ["closing"])
    }

    @Test func textThatIsNotUTF8ClosesWith1007() throws {
        let (channel, _, listener) = try connected()
        try channel.writeInbound(WebSocketFrame(fin: true, opcode: .text, data: ByteBuffer(bytes: [0xC3, 0x28])))
        #expect(try written(channel).compactMap(closeCode) == [1007])
        #expect(listener.messages.withLock { $0 }.isEmpty)
    }

    @Test func aCloseItStartsIsTheLastFrameAndTheSocketClosesAfterTheTimeout() throws {
        let (channel, socket, listener) = try connected()
        socket.close(.unknown(4400), reason: "Not a request.")
        // A change for the window arrives a moment later: it is not written.
        channel.write(WebSocketFrame(fin: true, opcode: .text, data: ByteBuffer(string: "after")), promise: nil)
        channel.flush()
        try channel.writeInbound(unmasked(.text, "ignored"))
        let sent = try written(channel)
        #expect(sent.count == 1 && closeCode(sent[0]) == 4400)
        #expect(String(buffer: sent[0].data).hasSuffix("Not a request."))
        #expect(listener.messages.withLock { $0 }.isEmpty)
        #expect(channel.isActive)
        channel.embeddedEventLoop.advanceTime(by: .seconds(3))
        #expect(!channel.isActive)
        #expect(listener.events.withLock { $0 } == ["closing", "closed"])
    }

    @Test func theWindowsCloseIsAnsweredAndTheSocketClosed() throws {
        let (channel, _, listener) = try connected()
        var code = ByteBuffer()
        code.write(webSocketErrorCode: .unknown(4000))
        try channel.writeInbound(WebSocketFrame(fin: true, opcode: .connectionClose, data: code))
        #expect(try written(channel).compactMap(closeCode) == [4000])
        #expect(!channel.isActive)
        #expect(listener.events.withLock { $0 } == ["closing", "closed"])
    }

    @Test func aWindowThatDoesNotAnswerAPingIsClosed() throws {
        let (channel, _, _) = try connected()
        channel.embeddedEventLoop.advanceTime(by: .seconds(30))
        let ping = try written(channel)
        #expect(ping.count == 1 && ping[0].opcode == .ping)
        try channel.writeInbound(WebSocketFrame(fin: true, opcode: .pong, data: ping[0].data))
        channel.embeddedEventLoop.advanceTime(by: .seconds(30))
        #expect(try written(channel).map(\.opcode) == [.ping])  // answered: pinged again
        channel.embeddedEventLoop.advanceTime(by: .seconds(30))
        #expect(try written(channel).compactMap(closeCode) == [1001])
    }

    @Test func readsWaitWhileTheListenerIsBusy() throws {
        let (channel, socket, listener) = try connected()
        let reads = CountedReads()
        try channel.pipeline.syncOperations.addHandler(reads, position: .first)
        listener.busy.withLock { $0 = true }
        try channel.writeInbound(unmasked(.text, "a"))
        channel.read()
        #expect(reads.count == 0)
        socket.resumeReading()
        #expect(reads.count == 1)
        channel.read()
        #expect(reads.count == 2)
    }

    @Test func aClosedSocketLetsGoOfItsListenerAndItsHandleDoesNotKeepIt() throws {
        weak var weakListener: Listener?
        weak var weakSocket: LiveSocket?
        let handle: LiveSocket.Handle
        do {
            let (connectedChannel, socket, listener) = try connected()
            handle = LiveSocket.Handle(socket, eventLoop: connectedChannel.eventLoop)
            weakListener = listener
            weakSocket = socket
            try connectedChannel.close().wait()
            connectedChannel.embeddedEventLoop.run()
            #expect(socket.listener == nil)
        }
        // The session (here, the listener) held the handle; neither keeps the other alive.
        #expect(weakListener == nil)
        #expect(weakSocket == nil)
        handle.close(.normalClosure, reason: "after")  // a no-op once the socket is gone
    }

    private func unmasked(_ opcode: WebSocketOpcode, _ text: String, fin: Bool = true) -> WebSocketFrame {
        WebSocketFrame(fin: fin, opcode: opcode, data: ByteBuffer(string: text))
    }
}

/// Counts the reads that reach the socket.
private final class CountedReads: ChannelOutboundHandler, @unchecked Sendable {
    typealias OutboundIn = Never
    var count = 0

    func read(context: ChannelHandlerContext) {
        count += 1
        context.read()
    }
}
