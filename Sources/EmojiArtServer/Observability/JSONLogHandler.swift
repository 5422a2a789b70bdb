import Foundation
import HTTPTypes
import Hummingbird
import Logging

/// How `emojiart serve` writes its log: `text` (swift-log's lines, for people) or `json` (one
/// JSON object per line, for collectors: `--log-format json`, `$EMOJIART_LOG_FORMAT`).
public enum LogFormat: String, Sendable, CaseIterable {
    case text
    case json
}

/// One JSON object per line on standard output: `time` (ISO 8601, UTC, milliseconds), `level`,
/// `label`, `message`, the metadata's keys, and `requestId` for a line logged while answering a
/// request (Hummingbird's `hb.request.id`), so every line of one request can be picked out.
public struct JSONLogHandler: LogHandler {
    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level = .info
    public var metadataProvider: Logger.MetadataProvider?
    let label: String
    let write: @Sendable (String) -> Void

    public init(label: String, metadataProvider: Logger.MetadataProvider? = nil) {
        self.init(label: label, metadataProvider: metadataProvider, write: JSONLogHandler.standardOutput)
    }

    init(label: String, metadataProvider: Logger.MetadataProvider? = nil, write: @escaping @Sendable (String) -> Void) {
        self.label = label
        self.metadataProvider = metadataProvider
        self.write = write
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var merged = metadata
        if let provided = metadataProvider?.get() { merged.merge(provided) { _, new in new } }
        if let extra = event.metadata { merged.merge(extra) { _, new in new } }
        var object: [String: Any] = [
            "time": Self.timestamp(Date()), "level": event.level.rawValue, "label": label,
            "message": event.message.description,
        ]
        for (key, value) in merged { object[key] = Self.json(value) }
        if let id = merged["hb.request.id"] { object["requestId"] = id.description }
        if event.level >= .error { object["source"] = "\(event.file):\(event.line)" }
        guard
            let data = try? JSONSerialization.data(
                withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
        else { return }
        write(String(decoding: data, as: UTF8.self))
    }

    static func json(_ value: Logger.Metadata.Value) -> Any {
        switch value {
        case .string(let text): text
        case .stringConvertible(let convertible): convertible.description
        case .array(let values): values.map(json)
        case .dictionary(let values): values.mapValues(json)
        }
    }

    static func timestamp(_ date: Date) -> String {
        date.formatted(
            .iso8601.year().month().day().time(includingFractionalSeconds: true).timeZone(separator: .omitted))
    }

    /// Whole lines, in batches (``LogOutput``): lines from several threads never interleave.
    static let standardOutput: @Sendable (String) -> Void = { line in
        LogOutput.standardOutput.append(line + "\n")
    }
}

/// One log line per request answered: the method, the route's pattern (never the path itself,
/// which for a share link holds its secret), the status and the time to the response's head;
/// at `info`, with the request's id, which is sent back as `X-Request-Id`.
/// (The id is sent back even when lines are not written: ``RequestTelemetry/accessLog`` off, or
/// a `--log-level` above `info`.)
struct AccessLogMiddleware<Context: RequestContext>: RouterMiddleware {
    var logs = true

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        guard logs, context.logger.logLevel <= .info else {
            var response = try await next(request, context)
            response.headers[.requestID] = context.id
            return response
        }
        let started = ContinuousClock.now
        var response = try await next(request, context)
        response.headers[.requestID] = context.id
        let elapsed = (ContinuousClock.now - started).components
        let microseconds = Int(elapsed.seconds * 1_000_000 + elapsed.attoseconds / 1_000_000_000_000)
        context.logger.info(
            "request",
            metadata: [
                "method": .string(request.method.rawValue), "route": .string(context.endpointPath ?? "unmatched"),
                "status": .stringConvertible(response.status.code),
                "durationMs": .string(Self.milliseconds(microseconds)),
            ])
        return response
    }

    /// `1.234` for 1,234 µs: three decimals, without `String(format:)` on every request.
    static func milliseconds(_ microseconds: Int) -> String {
        let fraction = String(microseconds % 1000)
        return "\(microseconds / 1000)." + String(repeating: "0", count: 3 - fraction.count) + fraction
    }
}

extension HTTPField.Name {
    /// The request's id, sent back on every response (``AccessLogMiddleware``).
    fileprivate static let requestID = HTTPField.Name("X-Request-Id")!
}
