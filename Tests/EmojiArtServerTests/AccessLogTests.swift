import Hummingbird
import Logging
import Synchronization
import Testing

@testable import EmojiArtServer

/// The access log's own formatting, written on every request without Foundation's formatter.
struct AccessLogTests {
    @Test(arguments: [
        (0, "0.000"), (7, "0.007"), (70, "0.070"), (999, "0.999"), (1_000, "1.000"), (1_234, "1.234"),
        (61_005, "61.005"), (12_345_678, "12345.678"),
    ])
    func aDurationIsWrittenInMillisecondsWithThreeDecimals(microseconds: Int, written: String) {
        #expect(RequestTelemetryMiddleware<BasicRequestContext>.milliseconds(microseconds) == written)
    }

    @Test func theClockWritesASecondInUTCAndInLocalTime() throws {
        let second = LogClock.format(1_795_723_504)
        #expect(second.utc == "2026-11-26T20:05:04")
        #expect(LogClock.utc(second.utc, milliseconds: 7) == "2026-11-26T20:05:04.007Z")
        #expect(LogClock.utc(second.utc, milliseconds: 999) == "2026-11-26T20:05:04.999Z")
        #expect(try #/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d{4}/#.wholeMatch(in: second.local) != nil)
        #expect(try #/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/#.wholeMatch(in: LogClock.shared.utcMilliseconds()) != nil)
    }

    /// After the time, a text line is exactly what swift-log's `StreamLogHandler` writes: the same
    /// level, label, metadata in key order (the handler's, then the event's over it), source and
    /// message.
    @Test(
        arguments: [
            (["hb.request.id": "4f2a"], ["status": "201", "method": "POST", "route": "/api/documents"], nil),
            ([:], [:], nil), (["a": "handler"], ["a": "event", "b": ["x", "y"]], nil),
            ([:], ["z": "1"], TestError.broken),
        ] as [(Logger.Metadata, Logger.Metadata, TestError?)])
    func aTextLineIsStreamLogHandlersLine(handler: Logger.Metadata, event: Logger.Metadata, error: TestError?) {
        let event = LogEvent(
            level: .info, message: "request", error: error, metadata: event, source: "EmojiArtServer",
            file: #fileID, function: #function, line: #line)
        var text = TextLogHandler(label: "emojiart") { _ in }
        text.metadata = handler
        let captured = Captured()
        var stream = StreamLogHandler(label: "emojiart", stream: captured, metadataProvider: nil)
        stream.metadata = handler
        stream.log(event: event)
        let line = text.line(event, time: "TIME")
        #expect(line.hasPrefix("TIME info emojiart:"))
        #expect(line.drop { $0 != " " } == captured.text.drop { $0 != " " })
    }

    enum TestError: Error { case broken }

    final class Captured: TextOutputStream, Sendable {
        private let lines = Mutex("")
        var text: String { lines.withLock { $0 } }
        func write(_ string: String) { lines.withLock { $0 += string } }
    }
}
