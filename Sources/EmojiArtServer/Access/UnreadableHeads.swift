import NIOCore
import NIOHTTP1

/// Answers a request head the HTTP decoder can't read, and closes the connection.
///
/// Left alone, a head over the decoder's limit (80 KiB, llhttp's) or one that isn't HTTP at
/// all fails the decoder with no answer, and the connection stays open with nothing more to
/// read. This handler sits right after the decoder for as long as the connection speaks HTTP:
/// an oversized head gets `431`, an unreadable one `400`, each with the API's JSON error, then
/// the connection closes.
final class UnreadableHeads: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private var answered = false

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        context.fireChannelRead(data)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let parseError = error as? HTTPParserError else {
            context.fireErrorCaught(error)
            return
        }
        guard !answered else { return }
        answered = true
        let (status, body) = Self.answer(to: parseError)
        let bytes = context.channel.allocator.buffer(string: body)
        let headers = HTTPHeaders([
            ("Content-Type", "application/json; charset=utf-8"), ("Content-Length", "\(bytes.readableBytes)"),
            ("Connection", "close"),
        ])
        context.write(
            wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(bytes))), promise: nil)
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in channel.close(promise: nil) }
    }

    /// The status and JSON error for a head that can't be read.
    static func answer(to error: HTTPParserError) -> (HTTPResponseStatus, String) {
        if error == .headerOverflow {
            return (
                .requestHeaderFieldsTooLarge,
                #"{"error":{"code":"head_too_large","message":"The request's headers are larger than the limit of 80 KiB."}}"#
            )
        }
        return (
            .badRequest,
            #"{"error":{"code":"bad_request","message":"The request could not be read as HTTP/1.1."}}"#
        )
    }
}
