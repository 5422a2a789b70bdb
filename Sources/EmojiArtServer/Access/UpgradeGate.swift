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

    init(siteGuard: SiteGuard) {
        self.siteGuard = siteGuard
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

/// The HTTP/1 server with WebSocket upgrades, with an ``UpgradeGate`` in front of them.
struct GuardedWebSocketChannel: ServerChildChannel {
    typealias Value = HTTP1WebSocketUpgradeChannel.Value

    let upgradeChannel: HTTP1WebSocketUpgradeChannel
    let siteGuard: SiteGuard

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        upgradeChannel.setup(channel: channel, logger: logger).flatMapThrowing { value in
            let pipeline = channel.pipeline.syncOperations
            let upgrader = try pipeline.handler(
                type: NIOTypedHTTPServerUpgradeHandler<HTTP1WebSocketUpgradeChannel.UpgradeResult>.self)
            try pipeline.addHandler(UpgradeGate(siteGuard: siteGuard), position: .before(upgrader))
            return value
        }
    }

    func handle(value: Value, logger: Logger) async {
        await upgradeChannel.handle(value: value, logger: logger)
    }
}

extension HTTPServerBuilder {
    /// HTTP/1 with WebSocket upgrades through `webSocketRouter`, refused ones answered by the
    /// HTTP router (``UpgradeGate``).
    static func guardedWebSocketUpgrade(
        webSocketRouter: Router<LiveRequestContext>, siteGuard: SiteGuard,
        configuration: WebSocketServerConfiguration
    ) -> HTTPServerBuilder {
        let webSocketResponder = webSocketRouter.buildResponder()
        return .init { responder in
            GuardedWebSocketChannel(
                upgradeChannel: HTTP1WebSocketUpgradeChannel(
                    responder: responder, webSocketResponder: webSocketResponder,
                    configuration: .init(ws: configuration)),
                siteGuard: siteGuard)
        }
    }
}
