import Instrumentation

/// A trace's id: 16 random bytes, written as 32 lowercase hex digits (W3C Trace Context).
public struct TraceID: Sendable, Hashable {
    public var high: UInt64
    public var low: UInt64

    public init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    static func random() -> TraceID {
        var generator = SystemRandomNumberGenerator()
        // All zeros is invalid.
        while true {
            let id = TraceID(high: generator.next(), low: generator.next())
            if id.high != 0 || id.low != 0 { return id }
        }
    }

    var bytes: [UInt8] { high.bigEndianBytes + low.bigEndianBytes }
    var hex: String { high.hex + low.hex }
}

/// A span's id: 8 random bytes, written as 16 lowercase hex digits.
public struct SpanID: Sendable, Hashable {
    public var value: UInt64

    public init(_ value: UInt64) { self.value = value }

    static func random() -> SpanID {
        var generator = SystemRandomNumberGenerator()
        while true {
            let id = SpanID(generator.next())
            if id.value != 0 { return id }
        }
    }

    var bytes: [UInt8] { value.bigEndianBytes }
    var hex: String { value.hex }
}

/// Where a span is in its trace: what a `traceparent` header carries between processes, and
/// what each span hands to the spans started inside it (in its `InstrumentationContext`).
public struct SpanContext: Sendable, Hashable {
    public var traceID: TraceID
    public var spanID: SpanID
    /// Whether the trace is recorded (the `sampled` flag): a span whose parent was not is not
    /// recorded either.
    public var sampled: Bool
    /// The caller's `tracestate` header, passed on unread.
    public var traceState: String?
    /// Whether this came from another process (a `traceparent` header).
    public var isRemote: Bool

    public init(traceID: TraceID, spanID: SpanID, sampled: Bool, traceState: String? = nil, isRemote: Bool = false) {
        self.traceID = traceID
        self.spanID = spanID
        self.sampled = sampled
        self.traceState = traceState
        self.isRemote = isRemote
    }

    /// `00-<trace id>-<span id>-<flags>`.
    public var traceparent: String { "00-\(traceID.hex)-\(spanID.hex)-\(sampled ? "01" : "00")" }

    /// A `traceparent` header's context, or nil if the header is not one (W3C Trace Context
    /// level 1: a version this reads, lowercase hex, ids not all zeros; a later version's
    /// header is read as far as version 00 goes).
    public init?(traceparent: String, traceState: String? = nil) {
        let utf8 = Array(traceparent.utf8)
        guard utf8.count >= 55, utf8[2] == UInt8(ascii: "-"), utf8[35] == UInt8(ascii: "-"),
            utf8[52] == UInt8(ascii: "-"),
            let version = UInt64(hex: utf8[0..<2]), version != 0xff,
            version != 0 || utf8.count == 55, version == 0 || utf8.count == 55 || utf8[55] == UInt8(ascii: "-"),
            let high = UInt64(hex: utf8[3..<19]), let low = UInt64(hex: utf8[19..<35]), high != 0 || low != 0,
            let span = UInt64(hex: utf8[36..<52]), span != 0,
            let flags = UInt64(hex: utf8[53..<55])
        else { return nil }
        self.init(
            traceID: TraceID(high: high, low: low), spanID: SpanID(span), sampled: flags & 1 == 1,
            traceState: traceState.flatMap { $0.isEmpty || $0.utf8.count > 512 ? nil : $0 }, isRemote: true)
    }
}

extension InstrumentationContext {
    /// The span this context is inside of, if any.
    public var spanContext: SpanContext? {
        get { self[SpanContextKey.self] }
        set { self[SpanContextKey.self] = newValue }
    }
}

private enum SpanContextKey: InstrumentationContextKey {
    typealias Value = SpanContext
    static var nameOverride: String? { "span-context" }
}

extension UInt64 {
    fileprivate var bigEndianBytes: [UInt8] { (0..<8).map { UInt8(truncatingIfNeeded: self >> (56 - 8 * $0)) } }

    fileprivate var hex: String {
        let digits = String(self, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }

    /// Lowercase hex digits only, as W3C Trace Context writes them.
    fileprivate init?(hex: ArraySlice<UInt8>) {
        var value: UInt64 = 0
        for byte in hex {
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            default: return nil
            }
            value = value << 4 | UInt64(digit)
        }
        self = value
    }
}
