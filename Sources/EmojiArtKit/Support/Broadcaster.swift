import Foundation
import Synchronization

/// Sends each event to every subscriber: the one fan-out used by live documents, palettes and
/// game sessions.
///
/// A subscriber is a pair of functions (``subscribe(receive:ended:)``) called on the sender's
/// thread — what a live connection uses, so a change reaches its writer without another task in
/// between — or a stream with a buffer of its own (``subscribe()``, ``BufferPolicy``). A
/// subscriber that stops listening or falls too far behind is forgotten at once.
public final class Broadcaster<Event: Sendable>: Sendable {
    /// What a stream subscriber that doesn't keep up gets.
    public enum BufferPolicy: Sendable, Equatable {
        /// Up to this many events wait; one more and the subscriber is dropped (its stream ends),
        /// so it can catch up some other way (a reconnect).
        case dropAfter(Int)
        /// Only the newest this many events wait: each newer one replaces the oldest.
        case newest(Int)
    }

    private struct Subscriber: Sendable {
        /// Takes an event; false drops the subscriber.
        var receive: @Sendable (Event) -> Bool
        var ended: @Sendable () -> Void
    }

    private let policy: BufferPolicy
    private let subscribers = Mutex<[UInt64: Subscriber]>([:])
    private let nextID = Atomic<UInt64>(0)

    public init(policy: BufferPolicy) {
        self.policy = policy
    }

    /// A subscriber that takes each event as it is sent, on the sender's thread. `receive`
    /// returns false to be dropped; `ended` is called once when the subscriber is dropped, the
    /// broadcaster finishes, or `unsubscribe` is called with the id returned here.
    public func subscribe(
        receive: @escaping @Sendable (Event) -> Bool, ended: @escaping @Sendable () -> Void
    ) -> UInt64 {
        let id = nextID.add(1, ordering: .relaxed).newValue
        subscribers.withLock { $0[id] = Subscriber(receive: receive, ended: ended) }
        return id
    }

    /// Forgets a subscriber, calling its `ended` if it was still subscribed.
    public func unsubscribe(_ id: UInt64) {
        subscribers.withLock { $0.removeValue(forKey: id) }?.ended()
    }

    /// A new subscriber's stream, with its continuation (for events only it should hear, such
    /// as replies to its own requests, in order with the rest).
    public func subscribe() -> (events: AsyncStream<Event>, continuation: AsyncStream<Event>.Continuation) {
        let buffering: AsyncStream<Event>.Continuation.BufferingPolicy =
            switch policy {
            case .dropAfter(let limit): .bufferingOldest(limit)
            case .newest(let limit): .bufferingNewest(limit)
            }
        let (events, continuation) = AsyncStream.makeStream(of: Event.self, bufferingPolicy: buffering)
        let dropsWhenFull = if case .dropAfter = policy { true } else { false }
        let id = subscribe(
            receive: { event in
                switch continuation.yield(event) {
                case .dropped: !dropsWhenFull
                case .terminated: false
                default: true
                }
            },
            ended: { continuation.finish() })
        continuation.onTermination = { [weak self] _ in self?.unsubscribe(id) }
        return (events, continuation)
    }

    /// How many subscribers are listening.
    public var count: Int { subscribers.withLock { $0.count } }

    /// Sends an event to every subscriber, dropping those that refuse it.
    public func send(_ event: Event) {
        let current = subscribers.withLock { Array($0) }
        for (id, subscriber) in current where !subscriber.receive(event) {
            unsubscribe(id)
        }
    }

    /// Sends a last event (if any) to every subscriber and ends every one.
    public func finishAll(with last: Event? = nil) {
        let ended = subscribers.withLock { subscribers in
            defer { subscribers = [:] }
            return Array(subscribers.values)
        }
        for subscriber in ended {
            if let last { _ = subscriber.receive(last) }
            subscriber.ended()
        }
    }
}
