import Logging

/// The log for people (`--log-format text`, the default), on standard error: swift-log's
/// `StreamLogHandler` line, `<time> <level> <label>: <key=value…> [<source>] <message>`, with the
/// metadata's keys in order. Written for a server that logs a line per request: the time is
/// formatted once a second (``LogClock``), the line is built in one string, and lines go out in
/// batches (``LogOutput``) — what the access log costs an edit is measured in
/// docs/PERFORMANCE.md.
public struct TextLogHandler: ServerLogHandler {
    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level = .info
    public var metadataProvider: Logger.MetadataProvider?
    let label: String
    let write: @Sendable (String) -> Void

    public init(label: String, metadataProvider: Logger.MetadataProvider? = nil) {
        self.init(label: label, metadataProvider: metadataProvider) { LogOutput.standardError.append($0) }
    }

    init(label: String, metadataProvider: Logger.MetadataProvider? = nil, write: @escaping @Sendable (String) -> Void) {
        self.label = label
        self.metadataProvider = metadataProvider
        self.write = write
    }

    public func log(event: LogEvent) {
        write(line(event, time: LogClock.shared.local()))
    }

    /// The line `event` makes at `time`, with its newline.
    func line(_ event: LogEvent, time: String) -> String {
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
}

/// What the server's two log handlers (``TextLogHandler``, ``JSONLogHandler``) share: the
/// metadata of a line, and setting it.
protocol ServerLogHandler: LogHandler {}

extension ServerLogHandler {
    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// The handler's metadata, then its provider's, then the event's over them, and the event's
    /// error as `error.message` and `error.type` (as swift-log's own handlers merge them).
    func metadata(of event: LogEvent) -> Logger.Metadata {
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
