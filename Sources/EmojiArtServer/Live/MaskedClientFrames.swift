import NIOCore

/// Closes a WebSocket connection with 1002 (protocol error) when the client sends a frame that
/// is not masked, as RFC 6455 §5.1 requires. (The frame decoder accepts either, as it serves
/// clients and servers alike.)
///
/// It sits first in the pipeline, on the raw bytes: it passes everything through untouched
/// until the server answers `101 Switching Protocols`, then reads just the frame headers of the
/// client's bytes (skipping their payloads) and checks the mask bit of each.
final class MaskedClientFrames: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    /// Where the client's byte stream is, as a value the tests drive.
    struct Reader: Equatable {
        /// Bytes of the current frame header read so far.
        private var header: [UInt8] = []
        /// Payload bytes of the current frame still to skip.
        private var payloadLeft: UInt64 = 0

        /// Reads the next bytes; false as soon as a frame turns out unmasked.
        mutating func read(_ bytes: some Collection<UInt8>) -> Bool {
            var index = bytes.startIndex
            while index != bytes.endIndex {
                if payloadLeft > 0 {
                    let available = UInt64(bytes.distance(from: index, to: bytes.endIndex))
                    let skipped = min(payloadLeft, available)
                    payloadLeft -= skipped
                    index = bytes.index(index, offsetBy: Int(skipped))
                    continue
                }
                header.append(bytes[index])
                index = bytes.index(after: index)
                guard header.count >= 2 else { continue }
                guard header[1] & 0x80 != 0 else { return false }
                let lengthField = header[1] & 0x7F
                let extended = lengthField == 126 ? 2 : lengthField == 127 ? 8 : 0
                guard header.count == 2 + extended + 4 else { continue }
                payloadLeft =
                    extended == 0
                    ? UInt64(lengthField)
                    : header[2..<(2 + extended)].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
                header.removeAll(keepingCapacity: true)
            }
            return true
        }
    }

    private var upgraded = false
    private var reader = Reader()
    private var closing = false

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if !upgraded {
            let buffer = unwrapOutboundIn(data)
            upgraded = buffer.readableBytesView.starts(with: Self.switchingProtocols)
        }
        context.write(data, promise: promise)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !closing else { return }
        guard upgraded else {
            context.fireChannelRead(data)
            return
        }
        let buffer = unwrapInboundIn(data)
        guard reader.read(buffer.readableBytesView) else {
            closing = true
            // A close frame with 1002, unmasked as server frames are; then the connection ends.
            let close = context.channel.allocator.buffer(bytes: [0x88, 0x02, 0x03, 0xEA])
            context.writeAndFlush(wrapOutboundOut(close)).whenComplete { _ in context.close(promise: nil) }
            return
        }
        context.fireChannelRead(data)
    }

    private static let switchingProtocols = Array("HTTP/1.1 101".utf8)
}
