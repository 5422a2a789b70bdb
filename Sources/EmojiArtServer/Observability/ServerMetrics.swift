import EmojiArtLive
import Foundation
import HTTPTypes
import Hummingbird
import Metrics
import Prometheus

/// The process's metrics, in Prometheus's text format at `/metrics` (docs/API.md, "Metrics").
///
/// swift-metrics is bootstrapped once per process with a Prometheus registry, before anything
/// records: ``RequestMetrics`` counts requests by route, method and status and
/// times them (`hb_requests_total`, `http_server_request_duration_seconds`); the commit queue,
/// the background fetcher and sign-in record their own; and the gauges of what is open now
/// are read when `/metrics` is asked.
enum ServerMetrics {
    /// The registry every metric of this process is in.
    static let registry: PrometheusCollectorRegistry = {
        let registry = PrometheusCollectorRegistry()
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.nameAndLabelSanitizer = { name, labels in
            (prometheusName(name), labels.map { (prometheusName($0.0), $0.1) })
        }
        // Requests and commits take from well under a millisecond to seconds.
        factory.defaultDurationHistogramBuckets = [
            .microseconds(250), .microseconds(500), .milliseconds(1), .milliseconds(2.5), .milliseconds(5),
            .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100), .milliseconds(250),
            .milliseconds(500), .seconds(1), .seconds(2.5), .seconds(5), .seconds(10),
        ]
        factory.valueHistogramBuckets["emojiart_commit_batch_size"] = [1, 2, 4, 8, 16, 32, 64, 128, 256]
        MetricsSystem.bootstrap(factory)
        return registry
    }()

    /// Bootstraps swift-metrics (once; later calls do nothing).
    static func bootstrap() { _ = registry }

    static let signInFailures = Counter(label: "emojiart_sign_in_failures_total")
    /// Live connections open now, by what they follow: `document`, `palettes` or `game`.
    static func liveConnections(_ kind: String) -> Meter {
        Meter(label: "emojiart_live_connections", dimensions: [("kind", kind)])
    }

    /// Names and label keys as Prometheus allows them: `hb.requests` becomes `hb_requests`.
    static func prometheusName(_ name: String) -> String {
        var result = ""
        for (index, scalar) in name.unicodeScalars.enumerated() {
            let allowed =
                (scalar >= "a" && scalar <= "z") || (scalar >= "A" && scalar <= "Z") || scalar == "_" || scalar == ":"
                || (index > 0 && scalar >= "0" && scalar <= "9")
            result.unicodeScalars.append(allowed ? scalar : "_")
        }
        // Counters are totals.
        if name == "hb.requests" || name == "hb.request.errors" { result += "_total" }
        if name == "http.server.request.duration" { result += "_seconds" }
        return result
    }
}

/// Who may read `/metrics`: a client on this machine that came straight here (not through a
/// proxy, which would make everyone look local: a request carrying any header a proxy adds,
/// ``ProxyHeaders``, counts as forwarded), or, in accounts mode, an admin's API token.
/// Anyone else gets `404`, as for a route that isn't there.
struct MetricsAccess: Sendable, Equatable {
    var peerIsLoopback: Bool
    var forwarded: Bool
    var requester: Requester

    var allows: Bool {
        if peerIsLoopback, !forwarded { return true }
        if case .user(let user, .token) = requester, user.isAdmin { return true }
        return false
    }
}

/// `GET /metrics`.
struct MetricsController {
    let library: DocumentLibrary?

    func addRoutes(to router: Router<AppRequestContext>) {
        router.get("/metrics", use: metrics)
    }

    @Sendable func metrics(_ request: Request, context: AppRequestContext) async throws -> Response {
        let access = MetricsAccess(
            peerIsLoopback: context.peerAddress.map(ServerConfiguration.isLoopback) ?? false,
            forwarded: ProxyHeaders.present(in: request.headers),
            requester: context.access.requester)
        guard access.allows else { throw APIError.notFound("There is nothing at /metrics.") }
        if let library { ServerMetrics.openDocuments.record(await library.openCount) }
        var buffer: [UInt8] = []
        buffer.reserveCapacity(16 * 1024)
        ServerMetrics.registry.emit(into: &buffer)
        var headers = HTTPFields()
        headers[.contentType] = "text/plain; version=0.0.4; charset=utf-8"
        headers[.cacheControl] = "no-store"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: buffer)))
    }
}

extension ServerMetrics {
    static let openDocuments = Gauge(label: "emojiart_live_documents")
}
