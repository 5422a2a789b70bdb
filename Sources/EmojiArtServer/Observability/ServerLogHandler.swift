import Foundation
import Logging

/// How `emojiart serve` writes its log: `text` (swift-log's lines, for people) or `json` (one
/// JSON object per line, for collectors: `--log-format json`, `$EMOJIART_LOG_FORMAT`).
public enum LogFormat: String, Sendable, CaseIterable {
    /// swift-log's `StreamLogHandler` line, `<time> <level> <label>: <key=value…> [<source>]
    /// <message>`, with the metadata's keys in order, on standard error.
    case text
    /// One JSON object per line on standard output: `time` (ISO 8601, UTC, milliseconds),
    /// `level`, `label`, `message`, the metadata's keys, and `requestId` for a line logged while
    /// answering a request (Hummingbird's `hb.request.id`), so every line of one request can be
    /// picked out.
    case json
}

/// The server's log, in either ``LogFormat``. Written for a server that logs a line per request:
/// the time is formatted once a second (``LogClock``), a text line is built in one string, and
/// lines go out in batches (``LogOutput``), so lines from several threads never interleave —
/// what the access log costs an edit is measured in docs/PERFORMANCE.md.
public struct ServerLogHandler: LogHandler {
    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level = .info
    public var metadataProvider: Logger.MetadataProvider?
    let label: String
    let format: LogFormat
    let write: @Sendable (String) -> Void

    /// A handler writing `format` to its standard stream: text to standard error, JSON to
    /// standard output.
    public init(label: String, format: LogFormat, metadataProvider: Logger.MetadataProvider? = nil) {
        let output = format == .json ? LogOutput.standardOutput : LogOutput.standardError
        self.init(label: label, format: format, metadataProvider: metadataProvider) { output.append($0) }
    }

    /// A handler handing each line, with its newline, to `write`.
    init(
        label: String, format: LogFormat, metadataProvider: Logger.MetadataProvider? = nil,
        write: @escaping @Sendable (String) -> Void
    ) {
        self.label = label
        self.format = format
        self.metadataProvider = metadataProvider
        self.write = write
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        switch format {
        case .text: write(textLine(event, time: LogClock.shared.local()))
        case .json: if let line = jsonLine(event, time: LogClock.shared.utcMilliseconds()) { write(line) }
        }
    }

    /// The text line `event` makes at `time`, with its newline.
    func textLine(_ event: LogEvent, time: String) -> String {
        let merged = metadata(of: event)
        var line = time
        line.reserveCapacity(128)
        line += " "
        line += event.level.rawValue
        if !label.isEmpty {
            line += " "
            line += label
        }
        line += ":"
        for (key, value) in merged.sorted(by: { $0.key < $1.key }) {
            line += " "
            line += key
            line += "="
            line += value.description
        }
        line += " ["
        line += event.source
        line += "] "
        line += event.message.description
        line += "\n"
        return line
    }

    /// The JSON line `event` makes at `time`, with its newline.
    func jsonLine(_ event: LogEvent, time: String) -> String? {
        let merged = metadata(of: event)
        var object: [String: Any] = [
            "time": time, "level": event.level.rawValue, "label": label, "message": event.message.description,
        ]
        for (key, value) in merged { object[key] = Self.json(value) }
        if let id = merged["hb.request.id"] { object["requestId"] = id.description }
        if event.level >= .error { object["source"] = "\(event.file):\(event.line)" }
        guard
            let data = try? JSONSerialization.data(
                withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
        else { return nil }
        return String(decoding: data, as: UTF8.self) + "\n"
    }

    private static func json(_ value: Logger.Metadata.Value) -> Any {
        switch value {
        case .string(let text): text
        case .stringConvertible(let convertible): convertible.description
        case .array(let values): values.map(json)
        case .dictionary(let values): values.mapValues(json)
        }
    }

    /// The handler's metadata, then its provider's, then the event's over them, and the event's
    /// error as `error.message` and `error.type` (as swift-log's own handlers merge them).
    private func metadata(of event: LogEvent) -> Logger.Metadata {
        var merged = metadata
        if let provided = metadataProvider?.get(), !provided.isEmpty { merged.merge(provided) { _, new in new } }
        if let explicit = event.metadata, !explicit.isEmpty { merged.merge(explicit) { _, new in new } }
        if let error = event.error {
            merged["error.message"] = "\(error)"
            merged["error.type"] = "\(String(reflecting: type(of: error)))"
        }
        return merged
    }
}
