import Tracing

/// Spans as OTLP's `ExportTraceServiceRequest` in protobuf's binary form, what an OTLP/HTTP
/// collector takes at `/v1/traces` (`application/x-protobuf`). Written by hand from
/// opentelemetry-proto's `trace.proto`, `common.proto` and `resource.proto` (the field numbers
/// below) rather than through a protobuf library: these few messages are all a server that only
/// sends spans needs.
enum OTLPEncoding {
    /// One request: every span under one resource (the process) and one scope (`emojiart`).
    static func request(_ spans: [FinishedSpan], resource: [(String, String)], scope: String) -> [UInt8] {
        var resourceSpans = Protobuf()
        resourceSpans.message(1) { resourceMessage in  // ResourceSpans.resource
            for (key, value) in resource {
                resourceMessage.message(1) { $0.keyValue(key, .string(value)) }  // Resource.attributes
            }
        }
        resourceSpans.message(2) { scopeSpans in  // ResourceSpans.scope_spans
            scopeSpans.message(1) { $0.string(1, scope) }  // ScopeSpans.scope: InstrumentationScope.name
            for span in spans {
                scopeSpans.message(2) { $0.span(span) }  // ScopeSpans.spans
            }
        }
        var request = Protobuf()
        request.bytes(1, resourceSpans.bytes)  // ExportTraceServiceRequest.resource_spans
        return request.bytes
    }
}

/// Protobuf's binary form, written field by field.
struct Protobuf {
    private(set) var bytes: [UInt8] = []

    private enum WireType: UInt8 {
        case varint = 0
        case fixed64 = 1
        case lengthDelimited = 2
        case fixed32 = 5
    }

    private mutating func tag(_ field: Int, _ type: WireType) {
        varint(UInt64(field) << 3 | UInt64(type.rawValue))
    }

    private mutating func varint(_ value: UInt64) {
        var value = value
        while value >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(value))
    }

    /// A varint field (`int64`, `uint32`, enums, `bool`); zero is the default and not written.
    mutating func varint(_ field: Int, _ value: UInt64) {
        guard value != 0 else { return }
        tag(field, .varint)
        varint(value)
    }

    mutating func fixed64(_ field: Int, _ value: UInt64) {
        tag(field, .fixed64)
        for shift in stride(from: 0, to: 64, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
    }

    mutating func fixed32(_ field: Int, _ value: UInt32) {
        tag(field, .fixed32)
        for shift in stride(from: 0, to: 32, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt32(shift))) }
    }

    mutating func bytes(_ field: Int, _ value: [UInt8]) {
        tag(field, .lengthDelimited)
        varint(UInt64(value.count))
        bytes.append(contentsOf: value)
    }

    mutating func string(_ field: Int, _ value: String) {
        bytes(field, Array(value.utf8))
    }

    mutating func message(_ field: Int, _ write: (inout Protobuf) -> Void) {
        var message = Protobuf()
        write(&message)
        bytes(field, message.bytes)
    }
}

extension Protobuf {
    /// `opentelemetry.proto.trace.v1.Span`.
    mutating func span(_ span: FinishedSpan) {
        bytes(1, span.context.traceID.bytes)
        bytes(2, span.context.spanID.bytes)
        if let state = span.context.traceState { string(3, state) }
        if let parent = span.parentSpanID { bytes(4, parent.bytes) }
        string(5, span.name)
        varint(6, span.kind.otlp)
        fixed64(7, span.start)
        fixed64(8, span.end)
        for (key, value) in span.attributes { message(9) { $0.keyValue(key, value) } }
        varint(10, UInt64(span.dropped.attributes))
        for event in span.events {
            message(11) { written in  // Span.Event
                written.fixed64(1, event.time)
                written.string(2, event.name)
                for (key, value) in event.attributes { written.message(3) { $0.keyValue(key, value) } }
            }
        }
        varint(12, UInt64(span.dropped.events))
        for link in span.links {
            message(13) { written in  // Span.Link
                written.bytes(1, link.context.traceID.bytes)
                written.bytes(2, link.context.spanID.bytes)
                if let state = link.context.traceState { written.string(3, state) }
                for (key, value) in link.attributes { written.message(4) { $0.keyValue(key, value) } }
            }
        }
        varint(14, UInt64(span.dropped.links))
        if let status = span.status {
            message(15) { written in  // Status: message 2, code 3 (1 ok, 2 error)
                if let text = status.message { written.string(2, text) }
                written.varint(3, status.code == .ok ? 1 : 2)
            }
        }
        // Span.flags: the W3C trace flags (sampled), and that the parent's remoteness is known
        // (bit 8) and whether it was remote (bit 9).
        let remote: UInt32 = span.parentSpanID == nil ? 0 : 0x100 | (span.context.isRemote ? 0x200 : 0)
        fixed32(16, 1 | remote)
    }

    /// `opentelemetry.proto.common.v1.KeyValue`.
    mutating func keyValue(_ key: String, _ value: SpanAttribute) {
        string(1, key)
        message(2) { $0.anyValue(value) }
    }

    /// `opentelemetry.proto.common.v1.AnyValue`: string 1, bool 2, int 3, double 4, array 5.
    mutating func anyValue(_ value: SpanAttribute) {
        switch value {
        case .string(let text): string(1, text)
        case .bool(let flag):
            tag(2, .varint)
            varint(flag ? 1 : 0)
        case .int32(let number): int(Int64(number))
        case .int64(let number): int(number)
        case .double(let number): fixed64(4, number.bitPattern)
        case .stringArray(let values): array(values.map(SpanAttribute.string))
        case .boolArray(let values): array(values.map(SpanAttribute.bool))
        case .int32Array(let values): array(values.map(SpanAttribute.int32))
        case .int64Array(let values): array(values.map(SpanAttribute.int64))
        case .doubleArray(let values): array(values.map(SpanAttribute.double))
        case .stringConvertible(let convertible): string(1, convertible.description)
        case .stringConvertibleArray(let values): array(values.map { .string($0.description) })
        default: string(1, "\(value)")
        }
    }

    private mutating func int(_ number: Int64) {
        tag(3, .varint)
        varint(UInt64(bitPattern: number))
    }

    private mutating func array(_ values: [SpanAttribute]) {
        message(5) { array in
            for value in values { array.message(1) { $0.anyValue(value) } }
        }
    }
}

extension SpanKind {
    /// `Span.SpanKind`: internal 1, server 2, client 3, producer 4, consumer 5.
    var otlp: UInt64 {
        switch self {
        case .internal: 1
        case .server: 2
        case .client: 3
        case .producer: 4
        case .consumer: 5
        }
    }
}
