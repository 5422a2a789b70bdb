import HTTPTypes
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1

/// The server's connections: HTTP/1 for Hummingbird's router, or a live WebSocket — a document,
/// the palettes, a game — upgraded by ``LiveUpgrade`` and run on the connection's event loop
/// with no task.
///
/// The pipeline starts as NIO's upgradable HTTP server, with no upgraders of its own, and in
/// front of its upgrade handler, in order: ``MaskedClientFrames`` on the raw bytes,
/// ``UnreadableHeads`` right after the request decoder, ``UpgradeGate`` (a refused site's
/// upgrade becomes a plain request), then ``LiveUpgrade``. Whatever the live router doesn't
/// take becomes HTTP after its first request head: Hummingbird's HTTP/1 handlers, its idle
/// timeout, and a task that serves the connection's requests.
struct LiveServerChannel: ServerChildChannel, HTTPChannelHandler {
    /// What the upgrade handler hands on when the connection stays HTTP.
    typealias HTTPConnection = NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>

    struct Value: ServerChildChannelValue {
        let channel: any Channel
        /// Who handles the connection.
        let owner: EventLoopFuture<LiveUpgrade.Owner>
        /// The HTTP connection, once it is one.
        let http: EventLoopFuture<HTTPConnection>
    }

    let responder: HTTPChannelHandler.Responder
    let http1: HTTP1Channel.Configuration
    let siteGuard: SiteGuard
    /// How long the first request head may take (``UpgradeGate``).
    let headTimeout: TimeAmount
    let live: LiveUpgrade.Opener

    /// - Parameter responder: the HTTP router's; a WebSocket request that reaches it is sent to a
    ///   new connection (``redirectingUpgrades(_:)``).
    init(
        responder: @escaping HTTPChannelHandler.Responder, http1: HTTP1Channel.Configuration, siteGuard: SiteGuard,
        headTimeout: TimeAmount, live: LiveUpgrade.Opener
    ) {
        self.responder = Self.redirectingUpgrades(responder)
        self.http1 = http1
        self.siteGuard = siteGuard
        self.headTimeout = headTimeout
        self.live = live
    }

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let http1 = http1
        return channel.eventLoop.makeCompletedFuture {
            let upgrades = NIOTypedHTTPServerUpgradeConfiguration<HTTPConnection>(
                upgraders: [],
                notUpgradingCompletionHandler: { channel in
                    channel.eventLoop.makeCompletedFuture {
                        let pipeline = channel.pipeline.syncOperations
                        try pipeline.addHandler(HTTP1ToHTTPServerCodec(secure: false))
                        try pipeline.addHandlers(http1.additionalChannelHandlers())
                        try pipeline.addHandler(
                            HTTPConnectionStateHandler(idleTimeout: http1.idleTimeout.map { .init($0) }, logger: logger)
                        )
                        return try HTTPConnection(
                            wrappingChannelSynchronously: channel,
                            configuration: .init(isOutboundHalfClosureEnabled: true))
                    }
                })
            var configuration = NIOUpgradableHTTPServerPipelineConfiguration(upgradeConfiguration: upgrades)
            // As Hummingbird's: requests are pipelined by the async channel, errors answered by the
            // application, and header fields already validated by HTTPTypes.
            configuration.enablePipelining = false
            configuration.enableErrorHandling = false
            configuration.enableResponseHeaderValidation = false
            configuration.decoderConfiguration.maxHeaderFieldSize = http1.httpDecoder.maxHeaderFieldSize
            configuration.decoderConfiguration.maxHeaderListSize = http1.httpDecoder.maxHeaderListSize
            configuration.decoderConfiguration.maxHeaderFieldCount = http1.httpDecoder.maxHeaderFieldCount
            let pipeline = channel.pipeline.syncOperations
            let http = try pipeline.configureUpgradableHTTPServerPipeline(configuration: configuration)
            let upgrader = try pipeline.handler(type: NIOTypedHTTPServerUpgradeHandler<HTTPConnection>.self)
            // The gate first, then the live upgrade, then NIO's (which makes the rest HTTP).
            let owner = channel.eventLoop.makePromise(of: LiveUpgrade.Owner.self)
            let liveUpgrade = LiveUpgrade(opener: live, logger: logger, owner: owner)
            try pipeline.addHandler(liveUpgrade, position: .before(upgrader))
            try pipeline.addHandler(
                UpgradeGate(siteGuard: siteGuard, headTimeout: headTimeout), position: .before(liveUpgrade))
            let decoder = try pipeline.handler(type: ByteToMessageHandler<HTTPRequestDecoder>.self)
            try pipeline.addHandler(UnreadableHeads(), position: .after(decoder))
            try pipeline.addHandler(MaskedClientFrames(), position: .first)
            return Value(channel: channel, owner: owner.futureResult, http: http)
        }
    }

    /// Serves the connection's requests, unless it became a live connection: that one runs on
    /// its event loop, with no task (``LiveUpgrade``).
    func handle(value: Value, logger: Logger) async {
        guard (try? await value.owner.get()) == .hummingbird else { return }
        do {
            await handleHTTP(asyncChannel: try await value.http.get(), logger: logger)
        } catch {
            // Closed before its first request was read.
            logger.trace("connection closed before a request: \(error)")
        }
    }

    /// Only a connection's first request is upgraded: a later one asking for a WebSocket is sent
    /// to a new connection (`307`, and this one closes), as Hummingbird's WebSocket server did.
    static func redirectingUpgrades(_ responder: @escaping HTTPChannelHandler.Responder)
        -> HTTPChannelHandler.Responder
    {
        struct RedirectedUpgrade: Error {}
        return { request, responseWriter, channel in
            guard SiteGuard.asksForWebSocket(request.headers[values: .upgrade]) else {
                return try await responder(request, responseWriter, channel)
            }
            let location = request.uri.query.map { "\(request.uri.path)?\($0)" } ?? request.uri.path
            try await responseWriter.writeResponse(
                HTTPResponse(status: .temporaryRedirect, headerFields: [.connection: "close", .location: location]))
            // Ends the connection.
            throw RedirectedUpgrade()
        }
    }
}

extension HTTPServerBuilder {
    /// HTTP/1 for `router`'s requests and live WebSockets for `liveRouter`'s routes
    /// (``LiveServerChannel``), refused sites' upgrades answered by the HTTP router
    /// (``UpgradeGate``).
    ///
    /// - Parameter headTimeout: how long a connection may go without a complete request head,
    ///   on its first request and between kept-alive ones.
    static func live(
        liveRouter: Router<LiveRequestContext>, siteGuard: SiteGuard, headTimeout: Duration, channels: LiveChannels,
        connections: LiveConnections
    ) -> HTTPServerBuilder {
        let liveResponder = liveRouter.buildResponder()
        let timeout = TimeAmount(headTimeout)
        let opener = LiveUpgrade.Opener(
            respond: { try await liveResponder.respond(to: $0, context: $1) }, channels: channels,
            connections: connections)
        return .init { responder in
            LiveServerChannel(
                responder: responder, http1: .init(idleTimeout: timeout), siteGuard: siteGuard, headTimeout: timeout,
                live: opener)
        }
    }
}
