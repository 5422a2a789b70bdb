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
public struct JSONLogHandler: ServerLogHandler {
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

    public func log(event: LogEvent) {
        let merged = metadata(of: event)
        var object: [String: Any] = [
            "time": LogClock.shared.utcMilliseconds(), "level": event.level.rawValue, "label": label,
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

    /// Whole lines, in batches (``LogOutput``): lines from several threads never interleave.
    static let standardOutput: @Sendable (String) -> Void = { line in
        LogOutput.standardOutput.append(line + "\n")
    }
}
