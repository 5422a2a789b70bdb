import Synchronization

/// Short messages between the servers that share a database, never stored: who is in each open
/// document, and where (the server's presence). PostgreSQL carries them with `NOTIFY` on a
/// channel of their own; a database no other server opens has none.
///
/// Delivery is best effort and at most once: a message sent while the database is away, or
/// while a server's listening connection was being re-established, is lost, and a server is told
/// so (``InstanceBroadcastEvent/reconnected``) to ask again for what it needs.
public protocol InstanceBroadcast: Sendable {
    /// The most UTF-8 bytes one payload may hold (PostgreSQL's `NOTIFY` takes less than 8,000).
    var maximumPayload: Int { get }

    /// Sends each payload, in order, to every server following, this one's included. Throws if
    /// the database can't take them now; nothing is retried. (PostgreSQL delivers identical
    /// payloads sent together once: send no duplicates that matter.)
    func broadcast(_ payloads: [String]) async throws

    /// Hands `handle` every payload broadcast from now on, by any server, until the calling task
    /// is cancelled; ``InstanceBroadcastEvent/reconnected`` first, and again after any gap.
    func followBroadcasts(_ handle: @Sendable (InstanceBroadcastEvent) async -> Void) async
}

/// What a server following the broadcasts hears.
public enum InstanceBroadcastEvent: Sendable, Equatable {
    /// Listening (again): anything broadcast before now was not heard.
    case reconnected
    case payload(String)
}

/// Broadcasts within one process: for tests of several servers without a database between
/// them. Each follower hears every payload, in order.
public final class LocalBroadcast: InstanceBroadcast {
    public let maximumPayload: Int
    private let followers = Mutex<[Int: AsyncStream<InstanceBroadcastEvent>.Continuation]>([:])
    private let nextFollower = Atomic<Int>(0)

    public init(maximumPayload: Int = 7_900) {
        self.maximumPayload = maximumPayload
    }

    public func broadcast(_ payloads: [String]) async throws {
        for payload in payloads where payload.utf8.count > maximumPayload {
            throw PayloadTooLong(bytes: payload.utf8.count)
        }
        let all = followers.withLock { Array($0.values) }
        for follower in all {
            for payload in payloads { follower.yield(.payload(payload)) }
        }
    }

    public func followBroadcasts(_ handle: @Sendable (InstanceBroadcastEvent) async -> Void) async {
        let id = nextFollower.add(1, ordering: .relaxed).newValue
        let (stream, continuation) = AsyncStream.makeStream(of: InstanceBroadcastEvent.self)
        followers.withLock { $0[id] = continuation }
        defer { followers.withLock { _ = $0.removeValue(forKey: id) } }
        continuation.onTermination = { _ in }
        await withTaskCancellationHandler {
            await handle(.reconnected)
            for await event in stream { await handle(event) }
        } onCancel: {
            continuation.finish()
        }
    }

    /// As PostgreSQL refuses a `NOTIFY` payload over its limit.
    public struct PayloadTooLong: Error {
        public var bytes: Int
    }

    /// How many servers follow now (for tests to wait on).
    public var followerCount: Int { followers.withLock { $0.count } }
}
