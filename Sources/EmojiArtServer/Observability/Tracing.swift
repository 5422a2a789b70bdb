import EmojiArtTracing
import Logging
import ServiceLifecycle

/// Traces of requests, exported over OTLP/HTTP (protobuf, ``OTLPExporter``) when
/// `$OTEL_EXPORTER_OTLP_ENDPOINT` is set (`http://collector:4318`; spans go to `/v1/traces`);
/// off otherwise. Hummingbird's `TracingMiddleware` makes a span per request, named by its
/// route; the request's path and query are never exported (a share link's path is its secret).
/// The other standard `OTEL_*` variables apply (``OTLPSettings``); metrics stay on `/metrics`
/// and logs on standard output.
public enum Tracing {
    /// Bootstraps the tracer for this process (once: `emojiart serve` calls it) and returns the
    /// exporter, to run with the server's services; nil when no endpoint is set.
    public static func bootstrap(_ configuration: ServerConfiguration, logger: Logger) -> (any Service)? {
        guard let settings = configuration.tracing else { return nil }
        return OTLPExporter.bootstrap(settings: settings, logger: logger, omitting: ["url.path", "url.query"])
    }
}

/// What each request leaves behind: its line in the access log (at `info`) and its counts and
/// times in `/metrics` (both by ``RequestTelemetryMiddleware``), its span when traces are
/// exported (Hummingbird's `TracingMiddleware`, installed only then: with no OTLP endpoint, no
/// span is made, not even a no-op one).
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
