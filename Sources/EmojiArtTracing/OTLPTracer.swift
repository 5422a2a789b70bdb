import Instrumentation
import Synchronization
import Tracing

/// A swift-distributed-tracing `Tracer` whose ended spans go to a ``SpanSink`` (the
/// ``OTLPExporter``). Spans join the trace of their parent — the span around them in this task,
/// or a caller's W3C `traceparent` header (``extract(_:into:using:)``) — and are recorded when
/// it is: a trace a caller didn't sample is not recorded here either (OpenTelemetry's
/// `parentbased_always_on`).
public final class OTLPTracer: Tracer {
    public typealias Span = OTLPSpan

    let sink: any SpanSink
    let omitted: Set<String>

    /// - Parameter omitted: attributes never exported, whoever sets them: the server leaves out
    ///   `url.path` and `url.query`, which Hummingbird records and which for a share link hold
    ///   its secret (the span's name is the route's pattern instead).
    public init(sink: any SpanSink, omitting omitted: Set<String> = []) {
        self.sink = sink
        self.omitted = omitted
    }

    public func startSpan<Instant: TracerInstant>(
        _ operationName: String, context: @autoclosure () -> InstrumentationContext, ofKind kind: SpanKind,
        at instant: @autoclosure () -> Instant, function: String, file fileID: String, line: UInt
    ) -> OTLPSpan {
        var context = context()
        let parent = context.spanContext
        let span = SpanContext(
            traceID: parent?.traceID ?? .random(), spanID: .random(), sampled: parent?.sampled ?? true,
            traceState: parent?.traceState)
        context.spanContext = span
        return OTLPSpan(
            name: operationName, kind: kind, context: context, span: span, parent: parent,
            start: instant().nanosecondsSinceEpoch, sink: span.sampled ? sink : nil, omitted: omitted)
    }

    public func forceFlush() {}

    public func extract<Carrier, Extract: Extractor>(
        _ carrier: Carrier, into context: inout InstrumentationContext, using extractor: Extract
    ) where Extract.Carrier == Carrier {
        guard let header = extractor.extract(key: "traceparent", from: carrier),
            let parent = SpanContext(
                traceparent: header, traceState: extractor.extract(key: "tracestate", from: carrier))
        else { return }
        context.spanContext = parent
    }

    public func inject<Carrier, Inject: Injector>(
        _ context: InstrumentationContext, into carrier: inout Carrier, using injector: Inject
    ) where Inject.Carrier == Carrier {
        guard let span = context.spanContext else { return }
        injector.inject(span.traceparent, forKey: "traceparent", into: &carrier)
        if let state = span.traceState { injector.inject(state, forKey: "tracestate", into: &carrier) }
    }
}

/// Where ended spans go.
public protocol SpanSink: Sendable {
    func add(_ span: FinishedSpan)
}

/// A span's record once it has ended: what is exported.
public struct FinishedSpan: Sendable {
    public var name: String
    public var kind: SpanKind
    public var context: SpanContext
    public var parentSpanID: SpanID?
    public var start: UInt64
    public var end: UInt64
    public var attributes: [(String, SpanAttribute)]
    public var events: [(name: String, time: UInt64, attributes: [(String, SpanAttribute)])]
    public var links: [(context: SpanContext, attributes: [(String, SpanAttribute)])]
    public var status: SpanStatus?
    /// What the limits (``OTLPSpan/limit``) left out.
    public var dropped: (attributes: Int, events: Int, links: Int)
}

/// One span: its name, attributes, events, links and status can change until it ends; then its
/// record (``FinishedSpan``) goes to the sink, once. A span of a trace that isn't sampled
/// records nothing.
public final class OTLPSpan: Tracing.Span {
    /// At most this many attributes, events and links a span (OpenTelemetry's default limits);
    /// more are counted and dropped.
    static let limit = 128

    private struct State {
        var name: String
        var attributes = SpanAttributes()
        var events: [SpanEvent] = []
        var links: [SpanLink] = []
        var status: SpanStatus?
        var dropped = (events: 0, links: 0)
        var ended = false
    }

    public let context: InstrumentationContext
    let kind: SpanKind
    let span: SpanContext
    let parent: SpanContext?
    let start: UInt64
    private let sink: (any SpanSink)?
    private let omitted: Set<String>
    private let state: Mutex<State>

    init(
        name: String, kind: SpanKind, context: InstrumentationContext, span: SpanContext, parent: SpanContext?,
        start: UInt64, sink: (any SpanSink)?, omitted: Set<String> = []
    ) {
        self.omitted = omitted
        self.kind = kind
        self.context = context
        self.span = span
        self.parent = parent
        self.start = start
        self.sink = sink
        state = Mutex(State(name: name))
    }

    public var operationName: String {
        get { state.withLock { $0.name } }
        set { state.withLock { if !$0.ended { $0.name = newValue } } }
    }

    public var attributes: SpanAttributes {
        get { state.withLock { $0.attributes } }
        set { state.withLock { if !$0.ended { $0.attributes = newValue } } }
    }

    public var isRecording: Bool { sink != nil && !state.withLock { $0.ended } }

    /// `ok` is final; `error` replaces nothing but an unset status (OpenTelemetry's rule).
    public func setStatus(_ status: SpanStatus) {
        state.withLock { state in
            guard !state.ended, state.status?.code != .ok else { return }
            state.status = status
        }
    }

    public func addEvent(_ event: SpanEvent) {
        state.withLock { state in
            guard !state.ended else { return }
            if state.events.count < Self.limit { state.events.append(event) } else { state.dropped.events += 1 }
        }
    }

    public func recordError<Instant: TracerInstant>(
        _ error: any Error, attributes: SpanAttributes, at instant: @autoclosure () -> Instant
    ) {
        var attributes = attributes
        attributes["exception.type"] = String(reflecting: type(of: error))
        attributes["exception.message"] = String(describing: error)
        addEvent(SpanEvent(name: "exception", at: instant(), attributes: attributes))
    }

    public func addLink(_ link: SpanLink) {
        state.withLock { state in
            guard !state.ended else { return }
            if state.links.count < Self.limit { state.links.append(link) } else { state.dropped.links += 1 }
        }
    }

    public func end<Instant: TracerInstant>(at instant: @autoclosure () -> Instant) {
        let end = instant().nanosecondsSinceEpoch
        guard
            let ended = state.withLock({ state -> State? in
                guard !state.ended else { return nil }
                state.ended = true
                return state
            }), let sink
        else { return }
        let (attributes, droppedAttributes) = limited(ended.attributes)
        sink.add(
            FinishedSpan(
                name: ended.name, kind: kind, context: span, parentSpanID: parent?.spanID, start: start,
                end: max(end, start), attributes: attributes,
                events: ended.events.map { ($0.name, $0.nanosecondsSinceEpoch, limited($0.attributes).0) },
                links: ended.links.compactMap { link in
                    link.context.spanContext.map { ($0, limited(link.attributes).0) }
                },
                status: ended.status,
                dropped: (droppedAttributes, ended.dropped.events, ended.dropped.links)))
    }

    /// The attributes in key order without the omitted ones, at most ``limit`` of them, and how
    /// many were left out over the limit.
    func limited(_ attributes: SpanAttributes) -> ([(String, SpanAttribute)], Int) {
        var all: [(String, SpanAttribute)] = []
        // SpanAttributes is not a Sequence: its own forEach is the only way through it.
        // swift-format-ignore: ReplaceForEachWithForLoop
        attributes.forEach { key, value in if !omitted.contains(key) { all.append((key, value)) } }
        all.sort { $0.0 < $1.0 }
        return (Array(all.prefix(Self.limit)), max(0, all.count - Self.limit))
    }
}
