import NIOWebSocket
import ServiceLifecycle
import Synchronization

/// The live document connections that are open, for the server's shutdown: each is closed
/// with 1000 (the window reconnects), as Hummingbird closes the other live connections, and
/// the shutdown goes on once they have all let go of their documents — or
/// ``LiveSocket/Configuration/closeTimeout`` and a second later.
final class LiveConnections: Service, Sendable {
    private let open = Mutex<[ObjectIdentifier: LiveSocket.Handle]>([:])
    private let closeTimeout: Duration

    init(closeTimeout: Duration) {
        self.closeTimeout = closeTimeout
    }

    var count: Int { open.withLock { $0.count } }

    func add(_ id: ObjectIdentifier, _ handle: LiveSocket.Handle) {
        open.withLock { $0[id] = handle }
        ServerMetrics.liveConnections("document").increment()
    }

    func remove(_ id: ObjectIdentifier) {
        open.withLock { $0[id] = nil }
        ServerMetrics.liveConnections("document").decrement()
    }

    func run() async throws {
        try? await gracefulShutdown()
        for handle in open.withLock({ Array($0.values) }) {
            handle.close(.normalClosure, reason: "The server is restarting.")
        }
        let deadline = ContinuousClock.now + closeTimeout + .seconds(1)
        while count > 0, ContinuousClock.now < deadline, !Task.isCancelled {
            try? await Task.sleep(for: .milliseconds(20))
        }
    }
}
