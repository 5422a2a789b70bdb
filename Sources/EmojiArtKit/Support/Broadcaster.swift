import Foundation
import Synchronization

/// Sends each event to every subscriber's stream: the one fan-out used by live documents,
/// palettes and game sessions.
///
/// Each subscriber has a buffer of its own (``BufferPolicy``); a subscriber whose stream ends
/// — it stopped listening, or it fell too far behind — is forgotten at once.
public final class Broadcaster<Event: Sendable>: Sendable {
    /// What a subscriber that doesn't keep up gets.
    public enum BufferPolicy: Sendable, Equatable {
        /// Up to this many events wait; one more and the subscriber is dropped (its stream ends),
        /// so it can catch up some other way (a reconnect).
        case dropAfter(Int)
        /// Only the newest this many events wait: each newer one replaces the oldest.
        case newest(Int)
    }

    private let policy: BufferPolicy
    private let subscribers = Mutex<[UInt64: AsyncStream<Event>.Continuation]>([:])
    private let nextID = Atomic<UInt64>(0)

    public init(policy: BufferPolicy) {
        self.policy = policy
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
        let id = nextID.add(1, ordering: .relaxed).newValue
        subscribers.withLock { $0[id] = continuation }
        continuation.onTermination = { [weak self] _ in
            _ = self?.subscribers.withLock { $0.removeValue(forKey: id) }
        }
        return (events, continuation)
    }

    /// How many subscribers are listening.
    public var count: Int { subscribers.withLock { $0.count } }

    /// Sends an event to every subscriber; with ``BufferPolicy/dropAfter(_:)``, one whose
    /// buffer is full is dropped.
    public func send(_ event: Event) {
        let current = subscribers.withLock { Array($0.values) }
        for continuation in current {
            if case .dropped = continuation.yield(event), case .dropAfter = policy {
                continuation.finish()
            }
        }
    }

    /// Sends a last event (if any) to every subscriber and ends every stream.
    public func finishAll(with last: Event? = nil) {
        let ended = subscribers.withLock { subscribers in
            defer { subscribers = [:] }
            return Array(subscribers.values)
        }
        for continuation in ended {
            if let last { continuation.yield(last) }
            continuation.finish()
        }
    }
}
