import Foundation
import Instrumentation
import Logging
import Synchronization
import Testing
import Tracing

@testable import EmojiArtTracing

/// W3C `traceparent` headers: what is read, and what is refused (and so starts a new trace).
struct TraceparentTests {
    @Test func aHeaderIsReadAndWrittenBack() throws {
        let header = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
        let context = try #require(SpanContext(traceparent: header, traceState: "congo=t61rcWkgMzE"))
        #expect(context.traceID == TraceID(high: 0x4bf9_2f35_77b3_4da6, low: 0xa3ce_929d_0e0e_4736))
        #expect(context.spanID == SpanID(0x00f0_67aa_0ba9_02b7))
        #expect(context.sampled && context.isRemote && context.traceState == "congo=t61rcWkgMzE")
        #expect(context.traceparent == header)
        #expect(SpanContext(traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00")?.sampled == false)
        // A later version is read as far as version 00 goes.
        #expect(SpanContext(traceparent: "cc-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-what-comes") != nil)
    }

    @Test(arguments: [
        "", "00", "garbage-that-is-long-enough-to-be-checked-field-by-field-ok",
        "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",  // uppercase
        "00-00000000000000000000000000000000-00f067aa0ba902b7-01",  // no trace
        "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",  // no span
        "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",  // version ff
        "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-",  // version 00 is 55 long
        "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-0g",
        "00_4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
    ])
    func aHeaderThatIsNotOneIsRefused(header: String) {
        #expect(SpanContext(traceparent: header) == nil)
    }
}

/// The tracer: spans join their parent's trace, end once, and leave out what must not leave.
struct OTLPTracerTests {
    final class Collected: SpanSink {
        let spans = Mutex<[FinishedSpan]>([])
        func add(_ span: FinishedSpan) { spans.withLock { $0.append(span) } }
        var all: [FinishedSpan] { spans.withLock { $0 } }
    }

    @Test func aSpanInsideAnotherJoinsItsTraceAndEndsOnce() throws {
        let collected = Collected()
        let tracer = OTLPTracer(sink: collected, omitting: ["url.path"])
        let outer = tracer.startSpan("outer", context: .topLevel, ofKind: .server)
        let inner = tracer.startSpan("inner", context: outer.context, ofKind: .internal)
        inner.attributes["url.path"] = "/s/secret"
        inner.attributes["http.route"] = "/s/{token}"
        inner.setStatus(SpanStatus(code: .ok))
        inner.setStatus(SpanStatus(code: .error))
        inner.recordError(CocoaError(.fileNoSuchFile))
        inner.end()
        inner.end()
        outer.operationName = "/api/documents/{id}"
        outer.end()
        let spans = collected.all
        try #require(spans.count == 2)
        let (innerSpan, outerSpan) = (spans[0], spans[1])
        #expect(innerSpan.context.traceID == outerSpan.context.traceID)
        #expect(innerSpan.parentSpanID == outerSpan.context.spanID && outerSpan.parentSpanID == nil)
        #expect(innerSpan.attributes.map(\.0) == ["http.route"], "url.path is never exported")
        #expect(innerSpan.status?.code == .ok, "ok is final")
        #expect(innerSpan.events.map(\.name) == ["exception"])
        #expect(outerSpan.name == "/api/documents/{id}" && outerSpan.kind == .server)
        #expect(outerSpan.end >= outerSpan.start)
    }

    @Test func aCallersTraceIsJoinedAndAnUnsampledOneIsNotRecorded() throws {
        let collected = Collected()
        let tracer = OTLPTracer(sink: collected)
        for (flags, recorded) in [("01", true), ("00", false)] {
            var context = InstrumentationContext.topLevel
            let headers = ["traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-\(flags)"]
            tracer.extract(headers, into: &context, using: DictionaryExtractor())
            let span = tracer.startSpan("request", context: context, ofKind: .server)
            #expect(span.isRecording == recorded)
            var injected: [String: String] = [:]
            tracer.inject(span.context, into: &injected, using: DictionaryInjector())
            #expect(injected["traceparent"]?.hasPrefix("00-4bf92f3577b34da6a3ce929d0e0e4736-") == true)
            #expect(injected["traceparent"]?.hasSuffix("-\(flags)") == true)
            span.end()
        }
        let spans = collected.all
        try #require(spans.count == 1)
        let span = spans[0]
        #expect(span.parentSpanID == SpanID(0x00f0_67aa_0ba9_02b7) && span.context.isRemote == false)
    }

    @Test func aSpanKeepsAtMostTheLimitOfAttributesAndCountsTheRest() throws {
        let collected = Collected()
        let span = OTLPTracer(sink: collected).startSpan("many", context: .topLevel, ofKind: .internal)
        for index in 0..<(OTLPSpan.limit + 5) { span.attributes["a\(index)"] = index }
        span.end()
        let finished = try #require(collected.all.first)
        #expect(finished.attributes.count == OTLPSpan.limit && finished.dropped.attributes == 5)
    }

    struct DictionaryExtractor: Extractor {
        func extract(key: String, from carrier: [String: String]) -> String? { carrier[key] }
    }

    struct DictionaryInjector: Injector {
        func inject(_ value: String, forKey key: String, into carrier: inout [String: String]) { carrier[key] = value }
    }
}

/// The protobuf written by hand, read back field by field.
struct OTLPEncodingTests {
    @Test func aKeyValueIsWrittenAsProtobufWritesIt() {
        var written = Protobuf()
        written.keyValue("a", .string("b"))
        #expect(written.bytes == [0x0a, 0x01, 0x61, 0x12, 0x03, 0x0a, 0x01, 0x62])
        var number = Protobuf()
        number.keyValue("n", .int64(-1))
        #expect(number.bytes == [0x0a, 0x01, 0x6e, 0x12, 0x0b, 0x18] + Array(repeating: 0xff, count: 9) + [0x01])
        var varint = Protobuf()
        varint.varint(6, 300)
        #expect(varint.bytes == [0x30, 0xac, 0x02])
    }

    @Test func aRequestCarriesTheResourceTheScopeAndEachSpan() throws {
        let span = FinishedSpan(
            name: "/api/documents/{id}", kind: .server,
            context: SpanContext(traceID: TraceID(high: 1, low: 2), spanID: SpanID(3), sampled: true),
            parentSpanID: SpanID(4), start: 1_000, end: 2_000, attributes: [("http.response.status_code", .int64(200))],
            events: [], links: [], status: SpanStatus(code: .error, message: "boom"), dropped: (0, 0, 0))
        let request = OTLPEncoding.request([span, span], resource: [("service.name", "emojiart")], scope: "emojiart")
        let resourceSpans = try #require(Fields(request)[1].first.map(Fields.init))
        let resource = try #require(resourceSpans[1].first.map(Fields.init))
        let serviceName = try #require(resource[1].first.map(Fields.init))
        #expect(String(decoding: serviceName[1][0], as: UTF8.self) == "service.name")
        let scopeSpans = try #require(resourceSpans[2].first.map(Fields.init))
        #expect(scopeSpans[2].count == 2)
        let written = Fields(scopeSpans[2][0])
        #expect(written[1][0] == [0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 2])
        #expect(written[2][0] == [0, 0, 0, 0, 0, 0, 0, 3] && written[4][0] == [0, 0, 0, 0, 0, 0, 0, 4])
        #expect(String(decoding: written[5][0], as: UTF8.self) == "/api/documents/{id}")
        #expect(written[6][0] == [2], "server")
        #expect(written[7][0] == [0xe8, 0x03, 0, 0, 0, 0, 0, 0], "start, fixed64 little-endian")
        let status = Fields(written[15][0])
        #expect(String(decoding: status[2][0], as: UTF8.self) == "boom" && status[3][0] == [2])
    }

    /// A protobuf message's fields by number: each varint's, fixed value's or bytes' raw bytes.
    struct Fields {
        var values: [Int: [[UInt8]]] = [:]

        init(_ bytes: [UInt8]) {
            var index = 0
            func varint() -> UInt64 {
                var value: UInt64 = 0
                var shift: UInt64 = 0
                while index < bytes.count {
                    let byte = bytes[index]
                    index += 1
                    value |= UInt64(byte & 0x7f) << shift
                    if byte < 0x80 { break }
                    shift += 7
                }
                return value
            }
            while index < bytes.count {
                let tag = varint()
                let field = Int(tag >> 3)
                let start = index
                switch tag & 7 {
                case 0:
                    _ = varint()
                    values[field, default: []].append(Array(bytes[start..<index]))
                case 1:
                    index += 8
                    values[field, default: []].append(Array(bytes[start..<index]))
                case 5:
                    index += 4
                    values[field, default: []].append(Array(bytes[start..<index]))
                default:
                    let length = Int(varint())
                    values[field, default: []].append(Array(bytes[index..<index + length]))
                    index += length
                }
            }
        }

        subscript(field: Int) -> [[UInt8]] { values[field] ?? [] }
    }
}

/// Settings from OpenTelemetry's variables, and the exporter's batches.
struct OTLPExporterTests {
    @Test func theEndpointAndTheOtherVariablesAreRead() throws {
        #expect(try OTLPSettings(environment: [:]) == nil)
        #expect(try OTLPSettings(environment: ["OTEL_EXPORTER_OTLP_ENDPOINT": ""]) == nil)
        let plain = try #require(try OTLPSettings(environment: ["OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318"]))
        #expect(
            plain.endpoint.absoluteString == "http://c:4318/v1/traces" && plain.resource == ["service.name": "emojiart"]
        )
        let slash = try #require(try OTLPSettings(environment: ["OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318/otlp/"]))
        #expect(slash.endpoint.absoluteString == "http://c:4318/otlp/v1/traces")
        let all = try #require(
            try OTLPSettings(environment: [
                "OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "https://h/x",
                "OTEL_EXPORTER_OTLP_HEADERS": "Authorization=Basic%20abc, x-team = art",
                "OTEL_RESOURCE_ATTRIBUTES": "deployment.environment=prod,service.name=ignored",
                "OTEL_SERVICE_NAME": "art-1", "OTEL_BSP_SCHEDULE_DELAY": "100", "OTEL_BSP_MAX_QUEUE_SIZE": "10",
                "OTEL_BSP_MAX_EXPORT_BATCH_SIZE": "3", "OTEL_EXPORTER_OTLP_TIMEOUT": "2500",
            ]))
        #expect(all.endpoint.absoluteString == "https://h/x")
        #expect(all.headers == ["Authorization": "Basic abc", "x-team": "art"])
        #expect(all.resource == ["service.name": "art-1", "deployment.environment": "prod"])
        #expect(all.delay == .milliseconds(100) && all.maxQueue == 10 && all.maxBatch == 3)
        #expect(all.timeout == .milliseconds(2500))
        #expect(
            try OTLPSettings(environment: ["OTEL_EXPORTER_OTLP_ENDPOINT": "http://c", "OTEL_SDK_DISABLED": "true"])
                == nil)
    }

    @Test(arguments: [
        ("OTEL_EXPORTER_OTLP_ENDPOINT", "ftp://c"), ("OTEL_EXPORTER_OTLP_ENDPOINT", "not a url"),
        ("OTEL_BSP_SCHEDULE_DELAY", "soon"), ("OTEL_BSP_MAX_QUEUE_SIZE", "0"),
        ("OTEL_EXPORTER_OTLP_HEADERS", "no-equals-sign"),
    ])
    func aValueThatCantBeUsedIsRefusedNamingItsVariable(name: String, value: String) {
        var environment = ["OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318"]
        environment[name] = value
        #expect {
            _ = try OTLPSettings(environment: environment)
        } throws: { error in
            (error as? OTLPSettings.Invalid)?.description.contains("$\(name)") == true
        }
    }

    @Test func spansGoInBatchesAndThoseOverTheQueueAreDropped() async throws {
        var settings = OTLPSettings(endpoint: URL(string: "http://c/v1/traces")!)
        settings.maxBatch = 2
        settings.maxQueue = 5
        let sent = Mutex<[[UInt8]]>([])
        let exporter = OTLPExporter(settings: settings, logger: Logger(label: "test")) { body in
            sent.withLock { $0.append(body) }
        }
        let tracer = OTLPTracer(sink: exporter)
        for index in 0..<7 { tracer.startSpan("span \(index)", context: .topLevel, ofKind: .internal).end() }
        await exporter.exportWaiting()
        let bodies = sent.withLock { $0 }
        #expect(bodies.count == 3, "5 spans kept, 2 a request")
        let names = bodies.flatMap { body in
            let scopeSpans = OTLPEncodingTests.Fields(
                OTLPEncodingTests.Fields(OTLPEncodingTests.Fields(body)[1][0])[2][0])
            return scopeSpans[2].map { String(decoding: OTLPEncodingTests.Fields($0)[5][0], as: UTF8.self) }
        }
        #expect(names == (0..<5).map { "span \($0)" })
    }
}
