import NIOCore
import NIOHTTP1

/// Keeps refused WebSocket upgrades from being negotiated at all.
///
/// This handler sits in front of the upgrade (``LiveUpgrade``): a request for a WebSocket that
/// ``SiteGuard`` refuses is passed on as a plain request (its `Upgrade` header replaced by
/// ``refusedUpgradeHeader``), so it reaches the HTTP router, whose ``SiteGuardMiddleware``
/// answers it like any other refused request — `421` or `403` with the JSON error — and the
/// connection closes.
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
    /// heads on a kept-alive connection fall under Hummingbird's idle timeout, which starts once
    /// the connection is known to be HTTP: ``LiveServerChannel``.)
    func handlerAdded(context: ChannelHandlerContext) {
        let channel = context.channel
        headDeadline = context.eventLoop.scheduleTask(in: headTimeout) { channel.close(promise: nil) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        headDeadline?.cancel()
        headDeadline = nil
    }

    /// Only a connection's first request can be upgraded (a later one is redirected to a new
    /// connection: ``LiveServerChannel``), so the gate looks at that one and steps aside: after an
    /// upgrade the bytes that follow are WebSocket frames, not HTTP.
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
