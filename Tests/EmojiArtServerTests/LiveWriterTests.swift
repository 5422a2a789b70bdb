import EmojiArtWire
import NIOCore
import NIOEmbedded
import NIOWebSocket
import Testing

@testable import EmojiArtServer

/// ``LiveWriter`` on an embedded channel, whose event loop runs only when told: what is held
/// until the snapshot is out, how frames not yet in the socket are counted, and how a window
/// that stops reading, a revocation, a stop and a close frame end the writing.
@Suite struct LiveWriterTests {
    private func written(_ channel: EmbeddedChannel) throws -> [String] {
        var texts: [String] = []
        while let frame = try channel.readOutbound(as: WebSocketFrame.self) {
            #expect(frame.opcode == .text && frame.fin)
            texts.append(String(buffer: frame.data))
        }
        return texts
    }

    private func run(_ channel: EmbeddedChannel) {
        (channel.eventLoop as! EmbeddedEventLoop).run()
    }

    @Test func whatComesBeforeTheSnapshotIsHeldThenEverythingGoesOutInOrder() async throws {
        let channel = EmbeddedChannel()
        let writer = LiveWriter(channel: channel, limit: 16)
        #expect(writer.deliver(.presence("a")))
        run(channel)
        #expect(try written(channel).isEmpty)  // the snapshot is still on its way
        writer.start(sentVersion: 0)
        #expect(writer.deliver(.presence("b")))
        #expect(writer.deliver(.reply(.refused(requestID: "r1", code: "conflict", message: "no", currentVersion: 0))))
        run(channel)
        let texts = try written(channel)
        #expect(texts.count == 3)
        #expect(texts[0] == "a" && texts[1] == "b" && texts[2].contains(#""requestId":"r1""#))
        writer.stop()
        #expect(await writer.ending() == nil)
        #expect(!writer.deliver(.presence("c")))  // stopped: the document may forget this window
    }

    @Test func aWindowThatStopsReadingIsDroppedAndItsSocketClosedIfItReadsNothing() async throws {
        let channel = EmbeddedChannel()
        try await channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 9)).get()
        let writer = LiveWriter(channel: channel, limit: 3)
        writer.start(sentVersion: 0)
        // The event loop never gets to write: the frames pile up.
        #expect(writer.deliver(.presence("1")) && writer.deliver(.presence("2")) && writer.deliver(.presence("3")))
        #expect(!writer.deliver(.presence("4")))
        #expect(!writer.deliver(.presence("5")))
        run(channel)
        #expect(try written(channel).isEmpty)
        #expect(await writer.ending() == LiveWriter.Ending(code: .fellBehind, reason: "Too far behind; reconnect."))
        #expect(channel.isActive)
        (channel.eventLoop as! EmbeddedEventLoop).advanceTime(by: LiveWriter.dropGrace)
        #expect(!channel.isActive)
    }

    @Test func framesCountUntilTheSocketHasThemNotJustUntilTheChannelDoes() async throws {
        let channel = EmbeddedChannel()
        let socket = HeldWrites()
        try await channel.pipeline.addHandler(socket)
        let writer = LiveWriter(channel: channel, limit: 3)
        writer.start(sentVersion: 0)
        #expect(writer.deliver(.presence("a")) && writer.deliver(.presence("b")))
        run(channel)
        socket.release()  // written to the socket: no longer counted
        #expect(writer.deliver(.presence("c")) && writer.deliver(.presence("d")) && writer.deliver(.presence("e")))
        run(channel)
        // c, d and e are in the channel but not in the socket: a fourth is one too many.
        #expect(!writer.deliver(.presence("f")))
        run(channel)
        #expect(await writer.ending()?.code == .fellBehind)
    }

    @Test func aRevocationEndsTheWritingAfterWhatWasQueued() async throws {
        let channel = EmbeddedChannel()
        let writer = LiveWriter(channel: channel, limit: 16)
        writer.start(sentVersion: 0)
        #expect(writer.deliver(.presence("before")))
        writer.end(.accessRevoked, reason: "The link was revoked.")
        #expect(!writer.deliver(.presence("after")))
        run(channel)
        #expect(try written(channel) == ["before"])
        #expect(await writer.ending() == LiveWriter.Ending(code: .accessRevoked, reason: "The link was revoked."))
    }

    @Test func nothingIsWrittenAfterACloseFrameWhoeverWroteIt() async throws {
        let channel = EmbeddedChannel()
        try await channel.pipeline.addHandler(WebSocketFrameEncoder())
        let writer = LiveWriter(channel: channel, limit: 16)
        writer.start(sentVersion: 0)
        #expect(writer.deliver(.presence("before")))
        run(channel)
        // The WebSocket layer closes (say the window sent a bad message)…
        var code = ByteBuffer()
        code.write(webSocketErrorCode: .unknown(4400))
        try await channel.writeAndFlush(WebSocketFrame(fin: true, opcode: .connectionClose, data: code)).get()
        // …and a change for the window arrives a moment later.
        _ = writer.deliver(.presence("after"))
        run(channel)
        var bytes: [UInt8] = []
        while var buffer = try channel.readOutbound(as: ByteBuffer.self) {
            bytes += buffer.readBytes(length: buffer.readableBytes) ?? []
        }
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(text.contains("before") && !text.contains("after"))
    }
}

/// Stands for a socket that takes writes only when told: write promises stay pending.
private final class HeldWrites: ChannelOutboundHandler, @unchecked Sendable {
    typealias OutboundIn = WebSocketFrame
    private var pending: [EventLoopPromise<Void>] = []

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if let promise { pending.append(promise) }
    }

    func release() {
        for promise in pending { promise.succeed() }
        pending = []
    }
}
