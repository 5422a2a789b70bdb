import AsyncHTTPClient
import Foundation
import Instrumentation
import Logging
import NIOCore
import ServiceLifecycle
import Synchronization

/// Where spans go and how they are batched, from OpenTelemetry's standard variables:
///
/// - `OTEL_EXPORTER_OTLP_ENDPOINT` (`http://collector:4318`; spans go to its `/v1/traces`), or
///   `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` (the whole URL). Neither set: no tracing.
/// - `OTEL_EXPORTER_OTLP_HEADERS` / `…_TRACES_HEADERS`: `key=value,…`, percent-encoded (an
///   `Authorization` for a hosted collector).
/// - `OTEL_SERVICE_NAME` (default `emojiart`) and `OTEL_RESOURCE_ATTRIBUTES` (`key=value,…`).
/// - `OTEL_BSP_SCHEDULE_DELAY` (ms between exports, 5000), `OTEL_BSP_MAX_QUEUE_SIZE` (2048 spans
///   wait at most; more are dropped and counted), `OTEL_BSP_MAX_EXPORT_BATCH_SIZE` (512 a
///   request), `OTEL_EXPORTER_OTLP_TIMEOUT` / `…_TRACES_TIMEOUT` (ms a request may take, 10000).
/// - `OTEL_SDK_DISABLED=true`: no tracing.
public struct OTLPSettings: Sendable, Equatable {
    public var endpoint: URL
    public var headers: [String: String] = [:]
    /// The process's resource attributes, `service.name` among them.
    public var resource: [String: String]
    public var delay: Duration = .milliseconds(5000)
    public var maxQueue = 2048
    public var maxBatch = 512
    public var timeout: Duration = .milliseconds(10_000)

    public init(endpoint: URL, serviceName: String = "emojiart") {
        self.endpoint = endpoint
        resource = ["service.name": serviceName]
    }

    /// The settings `environment` makes; nil when it sets no endpoint. A value that can't be
    /// used is refused, naming its variable.
    public init?(environment: [String: String]) throws(Invalid) {
        func value(_ name: String) -> String? { environment[name].flatMap { $0.isEmpty ? nil : $0 } }
        guard value("OTEL_SDK_DISABLED")?.lowercased() != "true" else { return nil }
        let endpoint: URL
        if let text = value("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") {
            endpoint = try Self.url(text, "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
        } else if let text = value("OTEL_EXPORTER_OTLP_ENDPOINT") {
            let base = try Self.url(text, "OTEL_EXPORTER_OTLP_ENDPOINT")
            endpoint = base.path.hasSuffix("/") ? base.appending(path: "v1/traces") : base.appending(path: "/v1/traces")
        } else {
            return nil
        }
        self.init(endpoint: endpoint)
        for name in ["OTEL_EXPORTER_OTLP_HEADERS", "OTEL_EXPORTER_OTLP_TRACES_HEADERS"] {
            if let text = value(name) { headers.merge(try Self.pairs(text, name)) { _, new in new } }
        }
        if let text = value("OTEL_RESOURCE_ATTRIBUTES") {
            resource.merge(try Self.pairs(text, "OTEL_RESOURCE_ATTRIBUTES")) { _, new in new }
        }
        if let name = value("OTEL_SERVICE_NAME") { resource["service.name"] = name }
        if let text = value("OTEL_BSP_SCHEDULE_DELAY") {
            delay = .milliseconds(try Self.number(text, "OTEL_BSP_SCHEDULE_DELAY", 1...3_600_000))
        }
        if let text = value("OTEL_BSP_MAX_QUEUE_SIZE") {
            maxQueue = try Self.number(text, "OTEL_BSP_MAX_QUEUE_SIZE", 1...1_000_000)
        }
        if let text = value("OTEL_BSP_MAX_EXPORT_BATCH_SIZE") {
            maxBatch = try Self.number(text, "OTEL_BSP_MAX_EXPORT_BATCH_SIZE", 1...100_000)
        }
        for name in ["OTEL_EXPORTER_OTLP_TIMEOUT", "OTEL_EXPORTER_OTLP_TRACES_TIMEOUT"] {
            if let text = value(name) { timeout = .milliseconds(try Self.number(text, name, 1...600_000)) }
        }
    }

    /// A variable's value that can't be used.
    public struct Invalid: Error, CustomStringConvertible, Equatable {
        public var description: String
    }

    private static func url(_ text: String, _ name: String) throws(Invalid) -> URL {
        guard let url = URL(string: text), url.scheme == "http" || url.scheme == "https", url.host != nil else {
            throw Invalid(description: "$\(name) must be an http(s) URL such as http://127.0.0.1:4318.")
        }
        return url
    }

    private static func number(_ text: String, _ name: String, _ range: ClosedRange<Int>) throws(Invalid) -> Int {
        guard let number = Int(text), range.contains(number) else {
            throw Invalid(
                description: "$\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound).")
        }
        return number
    }

    /// `key=value,key=value`, each part percent-decoded (W3C Baggage's form, which
    /// OpenTelemetry's variables use).
    static func pairs(_ text: String, _ name: String) throws(Invalid) -> [String: String] {
        var pairs: [String: String] = [:]
        for part in text.split(separator: ",") {
            let halves = part.split(separator: "=", maxSplits: 1)
            guard halves.count == 2,
                let key = String(halves[0]).trimmingCharacters(in: .whitespaces).removingPercentEncoding,
                let value = String(halves[1]).trimmingCharacters(in: .whitespaces).removingPercentEncoding,
                !key.isEmpty
            else {
                throw Invalid(description: "$\(name) must be key=value pairs separated by commas.")
            }
            pairs[key] = value
        }
        return pairs
    }
}

/// Sends ended spans to an OTLP/HTTP collector in batches, as a service beside the server:
/// every ``OTLPSettings/delay``, or at once when a batch is full, and whatever is left when the
/// server stops. Spans wait in memory, at most ``OTLPSettings/maxQueue``; past that they are
/// dropped and counted, so a collector that is down or slow costs the server nothing but the
/// spans. A failed export is logged and its spans dropped.
public final class OTLPExporter: SpanSink, Service {
    private struct Queue {
        var spans: [FinishedSpan] = []
        var dropped = 0
        /// Wakes the exporter when a batch is full.
        var waiting: CheckedContinuation<Void, Never>?
    }

    let settings: OTLPSettings
    private let logger: Logger
    private let queue = Mutex(Queue())
    private let send: @Sendable ([UInt8]) async throws -> Void

    public convenience init(settings: OTLPSettings, logger: Logger) {
        self.init(settings: settings, logger: logger) { body in
            try await OTLPExporter.post(body, settings: settings)
        }
    }

    /// With `send` in place of the HTTP request (tests).
    init(settings: OTLPSettings, logger: Logger, send: @escaping @Sendable ([UInt8]) async throws -> Void) {
        self.settings = settings
        self.logger = logger
        self.send = send
    }

    /// Makes the process's tracer send its spans to a new exporter, and returns the exporter (to
    /// run as a service). Once a process.
    public static func bootstrap(settings: OTLPSettings, logger: Logger, omitting omitted: Set<String>) -> OTLPExporter
    {
        let exporter = OTLPExporter(settings: settings, logger: logger)
        InstrumentationSystem.bootstrap(OTLPTracer(sink: exporter, omitting: omitted))
        return exporter
    }

    public func add(_ span: FinishedSpan) {
        let wake = queue.withLock { queue -> CheckedContinuation<Void, Never>? in
            guard queue.spans.count < settings.maxQueue else {
                queue.dropped += 1
                return nil
            }
            queue.spans.append(span)
            guard queue.spans.count >= settings.maxBatch else { return nil }
            defer { queue.waiting = nil }
            return queue.waiting
        }
        wake?.resume()
    }

    public func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                await self.nextBatchOrDelay()
                await self.exportWaitingToTheEnd()
            }
        }
        // What is left goes out as the server stops.
        await exportWaitingToTheEnd()
    }

    /// ``exportWaiting()`` in a task of its own, which the server's stopping (cancelling this
    /// one) doesn't reach: a request under way finishes, or times out, rather than being cut off
    /// with its spans dropped.
    private func exportWaitingToTheEnd() async {
        await Task { await self.exportWaiting() }.value
    }

    /// Waits ``OTLPSettings/delay``, or less if a batch fills meanwhile, or until cancelled.
    private func nextBatchOrDelay() async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { [delay = settings.delay] in try? await Task.sleep(for: delay) }
            group.addTask {
                await withTaskCancellationHandler {
                    await withCheckedContinuation { continuation in
                        let full = self.queue.withLock { queue -> Bool in
                            guard queue.spans.count < self.settings.maxBatch, !Task.isCancelled else { return true }
                            queue.waiting = continuation
                            return false
                        }
                        if full { continuation.resume() }
                    }
                } onCancel: {
                    self.queue.withLock { queue in
                        defer { queue.waiting = nil }
                        return queue.waiting
                    }?.resume()
                }
            }
            await group.next()
            group.cancelAll()
        }
    }

    /// Sends every span waiting now, a batch a request.
    func exportWaiting() async {
        let (spans, dropped) = queue.withLock { queue in
            defer { (queue.spans, queue.dropped) = ([], 0) }
            return (queue.spans, queue.dropped)
        }
        if dropped > 0 {
            logger.warning("\(dropped) spans dropped: more ended than the collector took (OTEL_BSP_MAX_QUEUE_SIZE).")
        }
        var start = spans.startIndex
        while start < spans.endIndex {
            let end = min(start + settings.maxBatch, spans.endIndex)
            let body = OTLPEncoding.request(
                Array(spans[start..<end]), resource: settings.resource.sorted { $0.key < $1.key }, scope: "emojiart")
            do {
                try await send(body)
            } catch {
                logger.warning("\(end - start) spans not exported to \(settings.endpoint.absoluteString): \(error)")
            }
            start = end
        }
    }

    /// A failed export: the collector's status.
    struct Refused: Error, CustomStringConvertible {
        var status: UInt
        var description: String { "the collector answered \(status)" }
    }

    private static let client = HTTPClient(eventLoopGroupProvider: .singleton)

    private static func post(_ body: [UInt8], settings: OTLPSettings) async throws {
        var request = HTTPClientRequest(url: settings.endpoint.absoluteString)
        request.method = .POST
        for (name, value) in settings.headers { request.headers.add(name: name, value: value) }
        request.headers.replaceOrAdd(name: "Content-Type", value: "application/x-protobuf")
        request.body = .bytes(ByteBuffer(bytes: body))
        let seconds = settings.timeout.components.seconds
        let timeout = TimeAmount.milliseconds(
            seconds * 1000 + settings.timeout.components.attoseconds / 1_000_000_000_000_000)
        let response = try await client.execute(request, timeout: timeout)
        // Read (at most a little of) the answer, so the connection can be used again.
        _ = try? await response.body.collect(upTo: 64 * 1024)
        guard (200..<300).contains(response.status.code) else { throw Refused(status: response.status.code) }
    }
}
