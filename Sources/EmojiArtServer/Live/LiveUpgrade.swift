import EmojiArtDigest
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import NIOHTTP1
import NIOWebSocket

/// Upgrades the live routes — `GET /api/documents/{id}/live`, `/api/palettes/live`,
/// `/api/game/live` — to WebSockets itself, so each connection runs on its event loop with no
/// task of its own (``LiveSocket`` and the route's session: ``LiveSession``, ``PaletteSession``,
/// ``GameSession``), where Hummingbird's upgrade would hold a task and its children for as long
/// as the window is open — 30–43 KB an idle connection, most of it their suspended stacks
/// (issue #21, "Memory").
///
/// It sits on a connection's first request, behind ``UpgradeGate`` (which has already turned a
/// refused site's upgrade into a plain request) and in front of NIO's upgrade handler, which
/// makes the connection HTTP (``LiveServerChannel``). A request that doesn't ask for a WebSocket
/// passes on at once. One that does is held, and the live router decides: the same middleware
/// says who is asking, and the route that matches checks what it asks for and records what to
/// start (``LiveRoute``). For a route that answers `200` this answers `101 Switching Protocols`
/// and puts the WebSocket frame codec and a ``LiveSocket`` in place of the HTTP handlers; a
/// route that declines, or a malformed handshake, gets `400` (`426` for a WebSocket version
/// other than 13) and the connection closes. A path no live route matches is a plain request
/// for the HTTP router (without its `Upgrade`, and the connection closes after the answer).
final class LiveUpgrade: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    /// Who handles the connection from here on: Hummingbird's HTTP/1, or this upgrade (a live
    /// connection, or a refused handshake closing).
    enum Owner: Sendable { case hummingbird, live }

    /// What the upgrade needs: the live router, and what the connections are made with.
    struct Opener: Sendable {
        let respond: @Sendable (Request, LiveRequestContext) async throws -> Response
        let channels: LiveChannels
        let connections: LiveConnections
    }

    /// What the live router made of a WebSocket request.
    enum Decision: Sendable {
        /// A live route took it: upgrade, with the route's headers.
        case upgrade(HTTPFields, LiveRoute)
        /// A live route declined it.
        case refuse
        /// No live route matched: it is an HTTP request.
        case notLive
    }

    private enum State {
        case waiting
        case holding(HTTPRequestHead)
        case deciding
        case done
    }

    private let opener: Opener
    private let logger: Logger
    private let owner: EventLoopPromise<Owner>
    private var ownerKnown = false
    private var state = State.waiting

    /// - Parameter owner: completed once it is known who handles the connection.
    init(opener: Opener, logger: Logger, owner: EventLoopPromise<Owner>) {
        self.opener = opener
        self.logger = logger
        self.owner = owner
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        // Closed before its first request was decided: Hummingbird's to wind up.
        settle(.hummingbird)
    }

    private func settle(_ who: Owner) {
        guard !ownerKnown else { return }
        ownerKnown = true
        owner.succeed(who)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch (state, unwrapInboundIn(data)) {
        case (.waiting, .head(let head)):
            guard Self.asksForWebSocket(head) else {
                // Not ours: Hummingbird's from here on.
                state = .done
                settle(.hummingbird)
                context.fireChannelRead(data)
                context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
                return
            }
            guard !Self.hasBody(head) else { return settleAndRefuse(context: context) }
            state = .holding(head)
        case (.holding, .body):
            settleAndRefuse(context: context)
        case (.holding(let head), .end):
            state = .deciding
            decide(head, context: context)
        case (.deciding, _), (.done, _), (.holding, .head), (.waiting, _):
            // Nothing more is read from a connection being upgraded before it is.
            break
        }
    }

    /// Nothing more is read while the upgrade is being decided: what the window sends before
    /// the `101` waits in the socket, not in memory. The socket reads again once upgraded.
    func read(context: ChannelHandlerContext) {
        switch state {
        case .holding, .deciding: break
        case .waiting, .done: context.read()
        }
    }

    /// A `GET` asking for a WebSocket (`Upgrade: websocket`, `Connection: Upgrade`).
    static func asksForWebSocket(_ head: HTTPRequestHead) -> Bool {
        head.method == .GET && SiteGuard.asksForWebSocket(head.headers["Upgrade"])
            && head.headers["Connection"].contains(where: {
                $0.split(separator: ",").contains { $0.trimmingCharacters(in: .whitespaces).lowercased() == "upgrade" }
            })
    }

    private static func hasBody(_ head: HTTPRequestHead) -> Bool {
        !head.headers["Transfer-Encoding"].isEmpty || head.headers["Content-Length"].contains { $0 != "0" }
    }

    private func settleAndRefuse(context: ChannelHandlerContext, status: HTTPResponseStatus = .badRequest) {
        state = .done
        settle(.live)
        refuse(status, context: context)
    }

    private func decide(_ head: HTTPRequestHead, context: ChannelHandlerContext) {
        let channel = context.channel
        let (opener, logger) = (opener, logger)
        let decided = context.eventLoop.makePromise(of: Decision.self)
        decided.completeWithTask {
            let request = Request(head: Self.request(head), body: .init(buffer: ByteBuffer()))
            let requestContext = LiveRequestContext(source: .init(channel: channel, logger: logger))
            return Self.decision(
                response: try? await opener.respond(request, requestContext), route: requestContext.liveRoute.value)
        }
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        decided.futureResult.whenComplete { result in
            let (upgrade, context) = loopBound.value
            guard case .deciding = upgrade.state else { return }
            upgrade.state = .done
            switch result {
            case .success(.upgrade(let fields, let route)):
                upgrade.upgrade(head, fields: fields, route: route, context: context)
            case .success(.notLive):
                upgrade.passOn(head, context: context)
            case .success(.refuse), .failure:
                upgrade.settle(.live)
                upgrade.refuse(.badRequest, context: context)
            }
        }
    }

    /// What the live router's answer means, with what its route recorded: `404` is its answer
    /// for a path none of its routes has (they never answer it themselves: a document that isn't
    /// there is a close code after the upgrade).
    static func decision(response: Response?, route: LiveRoute?) -> Decision {
        guard let response else { return .refuse }
        if response.status == .notFound, route == nil { return .notLive }
        guard response.status == .ok, let route else { return .refuse }
        return .upgrade(response.headers, route)
    }

    /// A well-formed handshake for a live route: upgraded; else refused.
    private func upgrade(_ head: HTTPRequestHead, fields: HTTPFields, route: LiveRoute, context: ChannelHandlerContext)
    {
        guard let accept = Self.acceptValue(head.headers) else {
            settle(.live)
            return refuse(.badRequest, context: context)
        }
        guard Self.speaksVersion13(head.headers) else {
            settle(.live)
            return refuse(.upgradeRequired, context: context)
        }
        do {
            try switchProtocols(fields, route: route, accept: accept, context: context)
        } catch {
            logger.debug("live upgrade failed: \(error)")
            settle(.live)
            context.close(promise: nil)
        }
    }

    /// A WebSocket request for a path no live route has: the HTTP router answers it, as a plain
    /// request, and the connection closes (the request decoder reads nothing after a request
    /// that asked for an upgrade).
    private func passOn(_ head: HTTPRequestHead, context: ChannelHandlerContext) {
        var head = head
        head.headers.remove(name: "Upgrade")
        head.headers.replaceOrAdd(name: "Connection", value: "close")
        settle(.hummingbird)
        context.fireChannelRead(wrapInboundOut(.head(head)))
        context.fireChannelRead(wrapInboundOut(.end(nil)))
        context.fireChannelReadComplete()
        // Reads were held while the request was decided.
        context.read()
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }

    /// The answer to a request the live router declines: `400` (or `426` for a WebSocket version
    /// other than 13), and the connection closes.
    private func refuse(_ status: HTTPResponseStatus, context: ChannelHandlerContext) {
        var headers: HTTPHeaders = ["Connection": "close", "Content-Length": "0"]
        if status == .upgradeRequired { headers.add(name: "Sec-WebSocket-Version", value: "13") }
        let head = HTTPResponseHead(version: .http1_1, status: status, headers: headers)
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in channel.close(promise: nil) }
    }

    /// Answers `101`, then turns the pipeline from HTTP to WebSocket frames and starts the
    /// route's connection.
    private func switchProtocols(_ fields: HTTPFields, route: LiveRoute, accept: String, context: ChannelHandlerContext)
        throws
    {
        var headers = HTTPHeaders(fields.map { ($0.name.rawName, $0.value) })
        headers.replaceOrAdd(name: "Upgrade", value: "websocket")
        headers.replaceOrAdd(name: "Connection", value: "Upgrade")
        headers.replaceOrAdd(name: "Sec-WebSocket-Accept", value: accept)
        let pipeline = context.pipeline.syncOperations
        // What can fail first, before anything is written or the connection started.
        let requestDecoder = try pipeline.context(handlerType: ByteToMessageHandler<HTTPRequestDecoder>.self)
        let responseEncoder = try pipeline.context(handlerType: HTTPResponseEncoder.self)
        let unreadableHeads = try pipeline.context(handlerType: UnreadableHeads.self)
        let httpUpgrade = try pipeline.context(
            handlerType: NIOTypedHTTPServerUpgradeHandler<LiveServerChannel.HTTPConnection>.self)
        // The 101 through the HTTP encoder, before the frame encoder is in its way.
        context.writeAndFlush(
            wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .switchingProtocols, headers: headers))),
            promise: nil)
        let configuration = opener.channels.socketConfiguration(for: route)
        let socket = LiveSocket(configuration: configuration)
        // The frame codec where the request decoder is, and the socket last.
        try pipeline.addHandlers(
            [
                ByteToMessageHandler(WebSocketFrameDecoder(maxFrameSize: configuration.maximumMessageBytes)),
                WebSocketFrameEncoder(),
            ], position: .after(requestDecoder.handler))
        try pipeline.addHandler(socket)
        // The HTTP handlers go. The request decoder's removal comes last and is carried out after
        // this one's: the bytes it still holds (frames sent before the 101) reach the frame
        // decoder only once nothing that reads HTTP parts is left in front of the socket.
        pipeline.removeHandler(context: responseEncoder, promise: nil)
        pipeline.removeHandler(context: unreadableHeads, promise: nil)
        pipeline.removeHandler(context: httpUpgrade, promise: nil)
        pipeline.removeHandler(context: requestDecoder, promise: nil)
        pipeline.removeHandler(context: context, promise: nil)
        LiveChannel.limitSendBuffer(of: context.channel)
        let connections = opener.connections
        let id = ObjectIdentifier(socket)
        let handle = opener.channels.connect(route, socket: socket, channel: context.channel) {
            connections.remove(id)
        }
        connections.add(id, handle, kind: route.kind)
        settle(.live)
        // Reads were held while the upgrade was decided.
        context.channel.read()
    }

    /// `Sec-WebSocket-Accept` for a well-formed handshake (RFC 6455 §4.2.1), or nil.
    static func acceptValue(_ headers: HTTPHeaders) -> String? {
        let keys = headers["Sec-WebSocket-Key"]
        guard keys.count == 1, let key = keys.first?.trimmingCharacters(in: .whitespaces),
            let decoded = Data(base64Encoded: key), decoded.count == 16
        else { return nil }
        let digest = Digest.sha1(Array((key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").utf8))
        return Data(digest).base64EncodedString()
    }

    static func speaksVersion13(_ headers: HTTPHeaders) -> Bool {
        headers["Sec-WebSocket-Version"].contains { $0.trimmingCharacters(in: .whitespaces) == "13" }
    }

    /// The request as the router reads it.
    private static func request(_ head: HTTPRequestHead) -> HTTPRequest {
        var fields = HTTPFields()
        for (name, value) in head.headers where name.lowercased() != "host" {
            if let name = HTTPField.Name(name) { fields.append(HTTPField(name: name, value: value)) }
        }
        return HTTPRequest(
            method: .get, scheme: "http", authority: head.headers.first(name: "Host"), path: head.uri,
            headerFields: fields)
    }
}
