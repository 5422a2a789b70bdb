import HTTPTypes
import Hummingbird
import Logging
import Metrics
import Synchronization

/// What each request leaves behind, in one middleware — one clock read either side of the
/// answer, nothing hung on the response's body — so that what it costs stays small
/// (docs/PERFORMANCE.md, "What request telemetry costs"):
///
/// - its counts and time in `/metrics` (``RequestMetrics``);
/// - its line in the access log, at `info`: the method, the route's pattern (never the path
///   itself, which for a share link holds its secret), the status and the time to the
///   response's head, with the request's id.
///
/// The id goes back as `X-Request-Id` on every response, even when nothing is recorded
/// (``RequestTelemetry`` off, or a `--log-level` above `info`).
struct RequestTelemetryMiddleware<Context: RequestContext>: RouterMiddleware {
    var logs = true
    var metrics: RequestMetrics?

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        let logs = self.logs && context.logger.logLevel <= .info
        guard logs || metrics != nil else {
            var response = try await next(request, context)
            response.headers[.requestID] = context.id
            return response
        }
        let started = ContinuousClock.now
        let active = metrics?.active(request.method)
        active?.increment()
        defer { active?.decrement() }
        var response: Response
        do {
            response = try await next(request, context)
        } catch {
            let status = (error as? any HTTPResponseError)?.status ?? .internalServerError
            metrics?.record(
                route: context.endpointPath ?? "NotFound", method: request.method, status: status,
                duration: ContinuousClock.now - started, failed: true)
            throw error
        }
        let id = context.id
        response.headers[.requestID] = id
        let elapsed = ContinuousClock.now - started
        metrics?.record(
            route: context.endpointPath ?? "Unknown", method: request.method, status: response.status,
            duration: elapsed)
        if logs {
            let parts = elapsed.components
            let microseconds = Int(parts.seconds * 1_000_000 + parts.attoseconds / 1_000_000_000_000)
            context.logger.info(
                "request",
                metadata: [
                    // The id as written in the header (the logger's own would be written out again).
                    "hb.request.id": .string(id),
                    "method": .string(request.method.rawValue),
                    "route": .string(context.endpointPath ?? "unmatched"),
                    "status": .string(String(response.status.code)),
                    "durationMs": .string(Self.milliseconds(microseconds)),
                ])
        }
        return response
    }

    /// `1.234` for 1,234 µs: three decimals, without `String(format:)` on every request.
    static func milliseconds(_ microseconds: Int) -> String {
        let fraction = String(microseconds % 1000)
        return "\(microseconds / 1000)." + String(repeating: "0", count: 3 - fraction.count) + fraction
    }
}

/// Requests counted and timed by route pattern, method and status, under the names
/// Hummingbird's `MetricsMiddleware` gives them (docs/API.md, "Metrics"): `hb.requests`,
/// `http.server.request.duration`, `hb.request.errors` and `http.server.active_requests`. The
/// swift-metrics handles of each route, method and status are made once and kept, so a request
/// costs a dictionary look-up and the increments.
final class RequestMetrics: Sendable {
    private struct Key: Hashable {
        var route: String
        var method: HTTPRequest.Method
        var status: Int
    }

    private struct Handles: Sendable {
        let requests: Counter
        let duration: Timer
        let errors: Counter
    }

    private let handles = Mutex<[Key: Handles]>([:])
    private let activeMeters = Mutex<[HTTPRequest.Method: Meter]>([:])

    /// Requests of `method` being answered now.
    func active(_ method: HTTPRequest.Method) -> Meter {
        activeMeters.withLock { meters in
            if let meter = meters[method] { return meter }
            let meter = Meter(
                label: "http.server.active_requests", dimensions: [("http.request.method", method.rawValue)])
            meters[method] = meter
            return meter
        }
    }

    /// One request answered (or `failed`: thrown past every middleware inside this one).
    func record(
        route: String, method: HTTPRequest.Method, status: HTTPResponse.Status, duration: Duration,
        failed: Bool = false
    ) {
        let key = Key(route: route, method: method, status: status.code)
        let handles = handles.withLock { handles in
            if let found = handles[key] { return found }
            let made = Self.make(key)
            handles[key] = made
            return made
        }
        handles.requests.increment()
        let parts = duration.components
        handles.duration.recordNanoseconds(parts.seconds * 1_000_000_000 + parts.attoseconds / 1_000_000_000)
        if failed { handles.errors.increment() }
    }

    private static func make(_ key: Key) -> Handles {
        let dimensions = [
            ("http.route", key.route), ("http.request.method", key.method.rawValue),
            ("http.response.status_code", String(key.status)),
        ]
        return Handles(
            requests: Counter(label: "hb.requests", dimensions: dimensions),
            duration: Timer(
                label: "http.server.request.duration", dimensions: dimensions, preferredDisplayUnit: .seconds),
            errors: Counter(
                label: "hb.request.errors",
                dimensions: [
                    ("http.route", key.route), ("http.request.method", key.method.rawValue),
                    ("error.type", String(key.status)),
                ]))
    }
}

extension HTTPField.Name {
    /// The request's id, sent back on every response (``RequestTelemetryMiddleware``).
    fileprivate static let requestID = HTTPField.Name("X-Request-Id")!
}
