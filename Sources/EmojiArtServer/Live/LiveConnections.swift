import NIOWebSocket
import ServiceLifecycle
import Synchronization

/// The live connections that are open — documents, palettes and games — for the metrics and the
/// server's shutdown: each is closed with 1000 (the window reconnects), and the shutdown goes on
/// once they have all let go of what they held (their documents, palettes and games) — or
/// ``LiveSocket/Configuration/closeTimeout`` and a second later.
final class LiveConnections: Service, Sendable {
    private let open = Mutex<[ObjectIdentifier: (handle: LiveSocket.Handle, kind: String)]>([:])
    private let closeTimeout: Duration

    init(closeTimeout: Duration) {
        self.closeTimeout = closeTimeout
    }

    var count: Int { open.withLock { $0.count } }

    /// A connection of `kind` (``LiveRoute/kind``) is open.
    func add(_ id: ObjectIdentifier, _ handle: LiveSocket.Handle, kind: String) {
        open.withLock { $0[id] = (handle, kind) }
        ServerMetrics.liveConnections(kind).increment()
    }

    func remove(_ id: ObjectIdentifier) {
        guard let removed = open.withLock({ $0.removeValue(forKey: id) }) else { return }
        ServerMetrics.liveConnections(removed.kind).decrement()
    }

    func run() async throws {
        try? await gracefulShutdown()
        for connection in open.withLock({ Array($0.values) }) {
            connection.handle.close(.normalClosure, reason: "The server is restarting.")
        }
        let deadline = ContinuousClock.now + closeTimeout + .seconds(1)
        while count > 0, ContinuousClock.now < deadline, !Task.isCancelled {
            try? await Task.sleep(for: .milliseconds(20))
        }
    }
}
