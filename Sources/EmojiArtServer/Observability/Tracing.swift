import Foundation
import OTel
import ServiceLifecycle

/// Traces of requests, exported over OTLP/HTTP (protobuf) with swift-otel when
/// `$OTEL_EXPORTER_OTLP_ENDPOINT` is set (`http://collector:4318`; spans go to `/v1/traces`);
/// off otherwise. Hummingbird's `TracingMiddleware` makes a span per request, named by its
/// route. The other `OTEL_*` variables swift-otel knows apply too (`OTEL_SERVICE_NAME`,
/// `OTEL_BSP_SCHEDULE_DELAY`…); metrics stay on `/metrics` and logs on standard output.
public enum Tracing {
    /// Bootstraps the tracer for this process (once: `emojiart serve` calls it) and returns the
    /// exporter, to run with the server's services; nil when no endpoint is set.
    public static func bootstrap(_ configuration: ServerConfiguration) throws -> (any Service)? {
        guard configuration.otlpEndpoint != nil else { return nil }
        var otel = OTel.Configuration.default
        otel.serviceName = "emojiart"
        otel.logs.enabled = false
        otel.metrics.enabled = false
        otel.traces.enabled = true
        otel.diagnosticLogLevel = .warning
        return try OTel.bootstrap(configuration: otel, environment: ProcessInfo.processInfo.environment)
    }
}

/// What each request leaves behind: its line in the access log (``AccessLogMiddleware``, at
/// `info`), its counts and times in `/metrics`, its span when traces are exported. Each is a
/// middleware on every request, so one that isn't wanted isn't installed at all: with no OTLP
/// endpoint, no span is made (not even a no-op one).
public struct RequestTelemetry: Sendable, Equatable {
    public var accessLog = true
    public var metrics = true
    public var tracing = false

    public init(accessLog: Bool = true, metrics: Bool = true, tracing: Bool = false) {
        self.accessLog = accessLog
        self.metrics = metrics
        self.tracing = tracing
    }

    /// None of it: only to measure what it costs (scripts/benchmark-http).
    public static let off = RequestTelemetry(accessLog: false, metrics: false, tracing: false)
}
