import EmojiArtWire
import NIOCore
import NIOEmbedded
import NIOWebSocket
import Synchronization
import Testing

@testable import EmojiArtServer

/// ``LiveWriter`` on an embedded channel, whose event loop runs only when told: what is held
/// until the opening is out, a snapshot written as the socket takes it, how frames not yet in
/// the socket are counted, and how a window that stops reading, a revocation and a stop end the
/// writing.
@Suite struct LiveWriterTests {
    private func frames(_ channel: EmbeddedChannel) throws -> [WebSocketFrame] {
        var frames: [WebSocketFrame] = []
        while let frame = try channel.readOutbound(as: WebSocketFrame.self) { frames.append(frame) }
        return frames
    }

    private func written(_ channel: EmbeddedChannel) throws -> [String] {
        try frames(channel).map { frame in
            #expect(frame.opcode == .text && frame.fin)
            return String(buffer: frame.data)
        }
    }

    private func run(_ channel: EmbeddedChannel) {
        (channel.eventLoop as! EmbeddedEventLoop).run()
    }

    /// A writer and what it ended with.
    private func writer(_ channel: EmbeddedChannel, limit: Int) -> (LiveWriter, Endings) {
        let endings = Endings()
        let writer = LiveWriter(channel: channel, limit: limit) { ending in endings.list.withLock { $0.append(ending) }
        }
        return (writer, endings)
    }

    /// The writer's life as a value: it ends once, with the first ending it is given, hands that
    /// ending over once, and a stopped writer has nothing to hand over.
    @Test(arguments: [
        (LiveWriter.Phase.holding, true, LiveWriter.Phase.ending(Self.revoked)),
        (.writing, true, .ending(Self.revoked)),
        (.ending(Self.behind), false, .ending(Self.behind)),
        (.ended, false, .ended),
        (.stopped, false, .stopped),
    ])
    func theWritingEndsOnceWithTheFirstEnding(from: LiveWriter.Phase, takes: Bool, after: LiveWriter.Phase) {
        var phase = from
        #expect(phase.takes == takes)
        phase.end(Self.revoked)
        #expect(phase == after)
        let handedOver = phase.handOver()
        if case .ending(let ending) = after {
            #expect(handedOver == ending && phase == .ended)
        } else {
            #expect(handedOver == nil && phase == after)
        }
        #expect(phase.handOver() == nil, "an ending is handed over once")
    }

    private static let revoked = LiveWriter.Ending(code: .accessRevoked, reason: "Access revoked.")
    private static let behind = LiveWriter.Ending(code: .fellBehind, reason: "Too far behind; reconnect.")

    @Test func whatComesBeforeTheOpeningIsHeldThenEverythingGoesOutInOrder() throws {
        let channel = EmbeddedChannel()
        let (writer, endings) = writer(channel, limit: 16)
        #expect(writer.deliver(.presence("a")))
        run(channel)
        #expect(try written(channel).isEmpty)  // the window has not been sent the document yet
        writer.start(sentVersion: 0, opening: .messages(["missed", "synced"]), first: ["role"])
        #expect(writer.deliver(.presence("b")))
        #expect(writer.deliver(.reply(.refused(requestID: "r1", code: "conflict", message: "no", currentVersion: 0))))
        run(channel)
        let texts = try written(channel)
        #expect(texts.count == 6)
        #expect(texts[..<5] == ["role", "missed", "synced", "a", "b"] && texts[5].contains(#""requestId":"r1""#))
        writer.stop()
        run(channel)
        #expect(endings.list.withLock { $0 }.isEmpty)
        #expect(!writer.deliver(.presence("c")))  // stopped: the document may forget this window
    }

    @Test func aSnapshotGoesOutInFragmentsAsTheSocketTakesThemAndWhatCameMeanwhileAfterIt() throws {
        let channel = EmbeddedChannel()
        let (writer, _) = writer(channel, limit: 16)
        let snapshot = String(repeating: "x", count: 2 * LiveWriter.fragmentBytes + 10)
        channel.isWritable = false
        writer.start(sentVersion: 0, opening: .snapshot(ByteBuffer(string: snapshot)), first: ["role"])
        #expect(writer.deliver(.presence("after")))
        run(channel)
        // The socket is full: only the window's own short text, which goes before the snapshot.
        #expect(try written(channel) == ["role"])
        channel.isWritable = true
        writer.writabilityChanged()
        run(channel)
        let sent = try frames(channel)
        #expect(sent.map(\.opcode) == [.text, .continuation, .continuation, .text])
        #expect(sent.map(\.fin) == [false, false, true, true])
        #expect(sent[..<3].map { String(buffer: $0.data) }.joined() == snapshot)
        #expect(String(buffer: sent[3].data) == "after")
    }

    @Test func aWindowThatStopsReadingIsDropped() async throws {
        let channel = EmbeddedChannel()
        let (writer, endings) = writer(channel, limit: 3)
        writer.start(sentVersion: 0, opening: .messages([]))
        // The event loop never gets to write: the frames pile up.
        #expect(writer.deliver(.presence("1")) && writer.deliver(.presence("2")) && writer.deliver(.presence("3")))
        #expect(!writer.deliver(.presence("4")))
        #expect(!writer.deliver(.presence("5")))
        run(channel)
        #expect(try written(channel).isEmpty)
        #expect(
            endings.list.withLock { $0 } == [LiveWriter.Ending(code: .fellBehind, reason: "Too far behind; reconnect.")]
        )
    }

    @Test func aRevocationDuringASnapshotEndsItBeforeAnotherMessageBegins() throws {
        let channel = EmbeddedChannel()
        let (writer, endings) = writer(channel, limit: 16)
        writer.start(
            sentVersion: 0, opening: .snapshot(ByteBuffer(repeating: 0x78, count: 3 * LiveWriter.fragmentBytes)))
        // One fragment fits before the socket is full.
        channel.isWritable = true
        let firstOnly = FirstWriteFills(channel)
        try channel.pipeline.syncOperations.addHandler(firstOnly)
        run(channel)
        #expect(writer.deliver(.presence("queued")))
        writer.end(.accessRevoked, reason: "The link was revoked.")
        run(channel)
        let sent = try frames(channel)
        #expect(sent.count == 1 && !sent[0].fin)  // no "queued" inside the unfinished snapshot
        #expect(
            endings.list.withLock { $0 } == [LiveWriter.Ending(code: .accessRevoked, reason: "The link was revoked.")])
    }

    @Test func framesCountUntilTheSocketHasThemNotJustUntilTheChannelDoes() async throws {
        let channel = EmbeddedChannel()
        let socket = HeldWrites()
        try await channel.pipeline.addHandler(socket)
        let (writer, endings) = writer(channel, limit: 3)
        writer.start(sentVersion: 0, opening: .messages([]))
        #expect(writer.deliver(.presence("a")) && writer.deliver(.presence("b")))
        run(channel)
        socket.release()  // written to the socket: no longer counted
        #expect(writer.deliver(.presence("c")) && writer.deliver(.presence("d")) && writer.deliver(.presence("e")))
        run(channel)
        // c, d and e are in the channel but not in the socket: a fourth is one too many.
        #expect(!writer.deliver(.presence("f")))
        run(channel)
        #expect(endings.list.withLock { $0 }.map(\.code) == [.fellBehind])
    }

    /// Revoked while it opened (between the grant and the opening): none of the opening goes —
    /// not the role, nor the changes it missed, nor what was held — only the close.
    @Test(arguments: [true, false]) func aWindowRevokedBeforeItsOpeningIsSentOnlyTheClose(snapshot: Bool) throws {
        let channel = EmbeddedChannel()
        let (writer, endings) = writer(channel, limit: 16)
        #expect(writer.deliver(.presence("held")))
        writer.end(.accessRevoked, reason: "The link was revoked.")
        let opening: LiveWriter.Opening = snapshot ? .snapshot(ByteBuffer(string: "snapshot")) : .messages(["missed"])
        writer.start(sentVersion: 0, opening: opening, first: ["role"])
        run(channel)
        #expect(try frames(channel).isEmpty)
        #expect(
            endings.list.withLock { $0 } == [LiveWriter.Ending(code: .accessRevoked, reason: "The link was revoked.")])
    }

    @Test func aRevocationEndsTheWritingAfterWhatWasQueued() throws {
        let channel = EmbeddedChannel()
        let (writer, endings) = writer(channel, limit: 16)
        writer.start(sentVersion: 0, opening: .messages([]))
        #expect(writer.deliver(.presence("before")))
        writer.end(.accessRevoked, reason: "The link was revoked.")
        #expect(!writer.deliver(.presence("after")))
        run(channel)
        #expect(try written(channel) == ["before"])
        #expect(
            endings.list.withLock { $0 } == [LiveWriter.Ending(code: .accessRevoked, reason: "The link was revoked.")])
    }
}

private final class Endings: Sendable {
    let list = Mutex<[LiveWriter.Ending]>([])
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

/// Stands for a socket whose buffer the first write fills.
private final class FirstWriteFills: ChannelOutboundHandler, @unchecked Sendable {
    typealias OutboundIn = WebSocketFrame
    private let channel: EmbeddedChannel

    init(_ channel: EmbeddedChannel) { self.channel = channel }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        channel.isWritable = false
        context.write(data, promise: promise)
    }
}
