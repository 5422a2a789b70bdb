import EmojiArtWire
import NIOCore
import NIOEmbedded
import NIOWebSocket
import Testing

@testable import EmojiArtServer

/// ``LiveWriter`` on an embedded channel, whose event loop runs only when told: what is held
/// until the snapshot is out, what one flush carries, and how a window that stops reading, a
/// revocation and a stop end the writing.
@Suite struct LiveWriterTests {
    private func written(_ channel: EmbeddedChannel) throws -> [String] {
        var texts: [String] = []
        while let frame = try channel.readOutbound(as: WebSocketFrame.self) {
            #expect(frame.opcode == .text && frame.fin)
            texts.append(String(buffer: frame.data))
        }
        return texts
    }

    @Test func whatComesBeforeTheSnapshotIsHeldThenEverythingGoesOutInOrder() async throws {
        let channel = EmbeddedChannel()
        let writer = LiveWriter(channel: channel, limit: 16)
        #expect(writer.deliver(.presence("a")))
        (channel.eventLoop as! EmbeddedEventLoop).run()
        #expect(try written(channel).isEmpty)  // the snapshot is still on its way
        writer.start(sentVersion: 0)
        #expect(writer.deliver(.presence("b")))
        #expect(writer.deliver(.reply(.refused(requestID: "r1", code: "conflict", message: "no", currentVersion: 0))))
        (channel.eventLoop as! EmbeddedEventLoop).run()
        let texts = try written(channel)
        #expect(texts.count == 3)
        #expect(texts[0] == "a" && texts[1] == "b" && texts[2].contains(#""requestId":"r1""#))
        writer.stop()
        #expect(await writer.ending() == nil)
        #expect(!writer.deliver(.presence("c")))  // stopped: the document may forget this window
    }

    @Test func aWindowThatStopsReadingIsDroppedWithWhatItWasNotSent() async throws {
        let channel = EmbeddedChannel()
        let writer = LiveWriter(channel: channel, limit: 3)
        writer.start(sentVersion: 0)
        // The event loop never gets to write: the frames pile up.
        #expect(writer.deliver(.presence("1")) && writer.deliver(.presence("2")) && writer.deliver(.presence("3")))
        #expect(!writer.deliver(.presence("4")))
        #expect(!writer.deliver(.presence("5")))
        (channel.eventLoop as! EmbeddedEventLoop).run()
        #expect(try written(channel).isEmpty)
        #expect(await writer.ending() == LiveWriter.Ending(code: .fellBehind, reason: "Too far behind; reconnect."))
    }

    @Test func aRevocationEndsTheWritingAfterWhatWasQueued() async throws {
        let channel = EmbeddedChannel()
        let writer = LiveWriter(channel: channel, limit: 16)
        writer.start(sentVersion: 0)
        #expect(writer.deliver(.presence("before")))
        writer.end(.accessRevoked, reason: "The link was revoked.")
        #expect(!writer.deliver(.presence("after")))
        (channel.eventLoop as! EmbeddedEventLoop).run()
        #expect(try written(channel) == ["before"])
        #expect(await writer.ending() == LiveWriter.Ending(code: .accessRevoked, reason: "The link was revoked."))
    }
}
