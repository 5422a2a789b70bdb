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
/// the time is formatted once a second (``LogClock``), a text line is built as bytes in one buffer, and
/// lines go out in batches (``LogOutput``), so lines from several threads never interleave —
/// what the access log costs an edit is measured in docs/PERFORMANCE.md.
public struct ServerLogHandler: LogHandler {
    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level = .info
    public var metadataProvider: Logger.MetadataProvider?
    let label: String
    let format: LogFormat
    let write: @Sendable ([UInt8]) -> Void

    /// A handler writing `format` to its standard stream: text to standard error, JSON to
    /// standard output.
    public init(label: String, format: LogFormat, metadataProvider: Logger.MetadataProvider? = nil) {
        let output = format == .json ? LogOutput.standardOutput : LogOutput.standardError
        self.init(label: label, format: format, metadataProvider: metadataProvider) { output.append($0) }
    }

    /// A handler handing each line, its UTF-8 with its newline, to `write`.
    init(
        label: String, format: LogFormat, metadataProvider: Logger.MetadataProvider? = nil,
        write: @escaping @Sendable ([UInt8]) -> Void
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

    /// The text line `event` makes at `time`, its UTF-8 with its newline: written byte by byte
    /// into one buffer, as the access log writes one per request.
    func textLine(_ event: LogEvent, time: String) -> [UInt8] {
        var line: [UInt8] = []
        line.reserveCapacity(192)
        line += time.utf8
        line.append(UInt8(ascii: " "))
        line += event.level.rawValue.utf8
        if !label.isEmpty {
            line.append(UInt8(ascii: " "))
            line += label.utf8
        }
        line.append(UInt8(ascii: ":"))
        for (key, value) in sortedMetadata(of: event) {
            line.append(UInt8(ascii: " "))
            line += key.utf8
            line.append(UInt8(ascii: "="))
            if case .string(let text) = value { line += text.utf8 } else { line += value.description.utf8 }
        }
        line += " [".utf8
        line += event.source.utf8
        line += "] ".utf8
        line += event.message.description.utf8
        line.append(UInt8(ascii: "\n"))
        return line
    }

    /// The JSON line `event` makes at `time`, its UTF-8 with its newline.
    func jsonLine(_ event: LogEvent, time: String) -> [UInt8]? {
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
        return Array(data) + [UInt8(ascii: "\n")]
    }

    private static func json(_ value: Logger.Metadata.Value) -> Any {
        switch value {
        case .string(let text): text
        case .stringConvertible(let convertible): convertible.description
        case .array(let values): values.map(json)
        case .dictionary(let values): values.mapValues(json)
        }
    }

    /// ``metadata(of:)`` in key order. A line with neither a provider's metadata nor an error
    /// (every access line) merges the handler's few keys and the event's in a small array rather
    /// than a new dictionary.
    private func sortedMetadata(of event: LogEvent) -> [(key: String, value: Logger.MetadataValue)] {
        guard metadataProvider == nil, event.error == nil else {
            return metadata(of: event).sorted { $0.key < $1.key }
        }
        var pairs = metadata.map { (key: $0.key, value: $0.value) }
        for (key, value) in event.metadata ?? [:] {
            if let index = pairs.firstIndex(where: { $0.key == key }) {
                pairs[index].value = value
            } else {
                pairs.append((key, value))
            }
        }
        pairs.sort { $0.key < $1.key }
        return pairs
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
