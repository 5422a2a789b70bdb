import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOHTTP1

/// Keeps refused WebSocket upgrades from being negotiated at all.
///
/// Hummingbird answers an upgrade its WebSocket router declines with an empty `400`. This
/// handler sits in front of the upgrade: a request for a WebSocket that ``SiteGuard`` refuses
/// is passed on as a plain request (its `Upgrade` header replaced by ``refusedUpgradeHeader``),
/// so it reaches the HTTP router, whose ``SiteGuardMiddleware`` answers it like any other
/// refused request — `421` or `403` with the JSON error — and the connection closes.
final class UpgradeGate: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart

    /// Marks a request that asked for a WebSocket and was refused one.
    static let refusedUpgradeHeader = "X-EmojiArt-Refused-Upgrade"

    private let siteGuard: SiteGuard
    /// How long the first request head may take; the connection is closed after that.
    private let headTimeout: TimeAmount
    private var headDeadline: Scheduled<Void>?

    init(siteGuard: SiteGuard, headTimeout: TimeAmount) {
        self.siteGuard = siteGuard
        self.headTimeout = headTimeout
    }

    /// A connection that never finishes its first request head (slowloris, or a half-open
    /// client) is closed rather than held open — and holding up shutdown — for ever. (Later
    /// heads on a kept-alive connection fall under Hummingbird's idle timeout.)
    func handlerAdded(context: ChannelHandlerContext) {
        let channel = context.channel
        headDeadline = context.eventLoop.scheduleTask(in: headTimeout) { channel.close(promise: nil) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        headDeadline?.cancel()
        headDeadline = nil
    }

    /// Only a connection's first request can be upgraded (a later one gets Hummingbird's redirect
    /// to a new connection), so the gate looks at that one and steps aside: after an upgrade the
    /// bytes that follow are WebSocket frames, not HTTP.
    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .head(var head) = unwrapInboundIn(data) else {
            context.fireChannelRead(data)
            return
        }
        let upgrade = head.headers["Upgrade"]
        func joined(_ name: String) -> String? {
            let values = head.headers[name]
            return values.isEmpty ? nil : values.joined(separator: ", ")
        }
        if SiteGuard.asksForWebSocket(upgrade),
            siteGuard.refusal(
                method: .init(head.method.rawValue) ?? .get, host: joined("Host"), origin: joined("Origin"),
                fetchSite: joined("Sec-Fetch-Site"), isUpgrade: true) != nil
        {
            head.headers.remove(name: "Upgrade")
            head.headers.replaceOrAdd(name: "Connection", value: "close")
            head.headers.replaceOrAdd(name: Self.refusedUpgradeHeader, value: upgrade.joined(separator: ", "))
            context.fireChannelRead(wrapInboundOut(.head(head)))
        } else {
            context.fireChannelRead(data)
        }
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }
}

/// The HTTP/1 server with WebSocket upgrades, with an ``UpgradeGate`` in front of them, and the
/// live document connections upgraded by ``LiveUpgrade`` rather than Hummingbird.
struct GuardedWebSocketChannel: ServerChildChannel {
    struct Value: ServerChildChannelValue {
        let upgrade: HTTP1WebSocketUpgradeChannel.Value
        let owner: EventLoopFuture<LiveUpgrade.Owner>
        var channel: any Channel { upgrade.channel }
    }

    let upgradeChannel: HTTP1WebSocketUpgradeChannel
    let siteGuard: SiteGuard
    let headTimeout: TimeAmount
    let live: LiveUpgrade.Opener

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        upgradeChannel.setup(channel: channel, logger: logger).flatMapThrowing { value in
            let pipeline = channel.pipeline.syncOperations
            let upgrader = try pipeline.handler(
                type: NIOTypedHTTPServerUpgradeHandler<HTTP1WebSocketUpgradeChannel.UpgradeResult>.self)
            // The gate first, then the live documents' upgrade, then Hummingbird's.
            let owner = channel.eventLoop.makePromise(of: LiveUpgrade.Owner.self)
            let liveUpgrade = LiveUpgrade(opener: live, logger: logger, owner: owner)
            try pipeline.addHandler(liveUpgrade, position: .before(upgrader))
            try pipeline.addHandler(
                UpgradeGate(siteGuard: siteGuard, headTimeout: headTimeout), position: .before(liveUpgrade))
            let decoder = try pipeline.handler(type: ByteToMessageHandler<HTTPRequestDecoder>.self)
            try pipeline.addHandler(UnreadableHeads(), position: .after(decoder))
            try pipeline.addHandler(MaskedClientFrames(), position: .first)
            return Value(upgrade: value, owner: owner.futureResult)
        }
    }

    /// Hummingbird's, unless the connection became a live document's: that one runs on its
    /// event loop, with no task (``LiveUpgrade``).
    func handle(value: Value, logger: Logger) async {
        guard (try? await value.owner.get()) == .hummingbird else { return }
        await upgradeChannel.handle(value: value.upgrade, logger: logger)
    }
}

extension HTTPServerBuilder {
    /// HTTP/1 with WebSocket upgrades through `webSocketRouter`, refused ones answered by the
    /// HTTP router (``UpgradeGate``), live documents' upgraded by ``LiveUpgrade``.
    ///
    /// - Parameter headTimeout: how long a connection may go without a complete request head,
    ///   on its first request and between kept-alive ones.
    static func guardedWebSocketUpgrade(
        webSocketRouter: Router<LiveRequestContext>, siteGuard: SiteGuard, headTimeout: Duration,
        configuration: WebSocketServerConfiguration, live: LiveChannel, connections: LiveConnections
    ) -> HTTPServerBuilder {
        let webSocketResponder = webSocketRouter.buildResponder()
        let timeout = TimeAmount(headTimeout)
        let opener = LiveUpgrade.Opener(
            respond: { try await webSocketResponder.respond(to: $0, context: $1) }, channel: live,
            connections: connections,
            socket: .init(
                maximumMessageBytes: configuration.maxFrameSize, closeTimeout: TimeAmount(configuration.closeTimeout)))
        return .init { responder in
            GuardedWebSocketChannel(
                upgradeChannel: HTTP1WebSocketUpgradeChannel(
                    responder: responder, webSocketResponder: webSocketResponder,
                    configuration: .init(http1: .init(idleTimeout: timeout), ws: configuration)),
                siteGuard: siteGuard, headTimeout: timeout, live: opener)
        }
    }
}
