import Foundation
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
        var text = ServerLogHandler(label: "emojiart", format: .text) { _ in }
        text.metadata = handler
        let captured = Captured()
        var stream = StreamLogHandler(label: "emojiart", stream: captured, metadataProvider: nil)
        stream.metadata = handler
        stream.log(event: event)
        let line = String(decoding: text.textLine(event, time: "TIME"), as: UTF8.self)
        #expect(line.hasPrefix("TIME info emojiart:"))
        #expect(line.drop { $0 != " " } == captured.text.drop { $0 != " " })
    }

    /// A JSON line is one object on one line: the time, level, label and message, every key of
    /// the metadata (the event's over the handler's), the request's id again as `requestId`, and
    /// an error's source.
    @Test func aJSONLineIsOneObjectWithTheRequestsID() throws {
        var handler = ServerLogHandler(label: "emojiart", format: .json) { _ in }
        handler.metadata = ["hb.request.id": "4f2a", "status": "200"]
        let event = LogEvent(
            level: .error, message: "request \"quoted\"\nsecond line", error: nil,
            metadata: ["status": "500", "tags": ["a", "b"]], source: "EmojiArtServer", file: "F.swift",
            function: #function, line: 7)
        let line = String(decoding: try #require(handler.jsonLine(event, time: "TIME")), as: UTF8.self)
        #expect(line.hasSuffix("}\n"))
        #expect(line.dropLast().contains("\n") == false)
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: any Sendable])
        #expect(object["time"] as? String == "TIME")
        #expect(object["level"] as? String == "error")
        #expect(object["label"] as? String == "emojiart")
        #expect(object["message"] as? String == "request \"quoted\"\nsecond line")
        #expect(object["status"] as? String == "500")
        #expect(object["tags"] as? [String] == ["a", "b"])
        #expect(object["requestId"] as? String == "4f2a")
        #expect(object["source"] as? String == "F.swift:7")
    }

    enum TestError: Error { case broken }

    final class Captured: TextOutputStream, Sendable {
        private let lines = Mutex("")
        var text: String { lines.withLock { $0 } }
        func write(_ string: String) { lines.withLock { $0 += string } }
    }
}
