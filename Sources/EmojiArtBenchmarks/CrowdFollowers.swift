import CEpoll
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The crowd's following windows as plain sockets, all read by one thread, as one event-driven
/// client would read them: the benchmark measures the server's fan-out, not a WebSocket client
/// library's (a thousand async clients in this process took as much CPU as the server, on the
/// same two cores). Each window counts its snapshot and records each `change` as it arrives.
/// With `reconnects`, a window whose connection ends connects again from the last version it saw,
/// after the editor's backoff (``EditorBackoff``).
final class CrowdFollowers: Sendable {
    private let sockets: Mutex<[RawLiveSocket?]>
    private let stopped = Atomic<Bool>(false)

    /// Windows `first`, `first + 1`… on document `id`, reporting to `recorder` as document 0.
    convenience init(count: Int, first: Int, port: Int, id: UUID, recorder: DeliveryRecorder) {
        self.init(windows: Array(repeating: (id, 0), count: count), first: first, port: port, recorder: recorder)
    }

    /// Windows `first`, `first + 1`…, one on each of `windows`' documents (`id`), reporting to
    /// `recorder` under its `document` number.
    init(
        windows: [(id: UUID, document: Int)], first: Int, port: Int, recorder: DeliveryRecorder,
        reconnects: Bool = false
    ) {
        let opened = windows.map { window in RawLiveSocket(port: port, document: window.id) }
        sockets = Mutex(opened)
        let states = zip(windows, opened).map { window, socket in
            Window(id: window.id, document: window.document, descriptor: socket?.descriptor ?? -1)
        }
        let connection = Connection(port: port, first: first, reconnects: reconnects, recorder: recorder)
        Thread { [self] in read(states, connection) }.start()
    }

    var count: Int { sockets.withLock { $0.count { $0 != nil } } }

    func stop() {
        stopped.store(true, ordering: .relaxed)
        sockets.withLock { for socket in $0 { socket?.close() } }
    }

    private struct Connection {
        var port: Int
        var first: Int
        var reconnects: Bool
        var recorder: DeliveryRecorder
    }

    private struct Window {
        var id: UUID
        var document: Int
        var descriptor: Int32
        var pending: [UInt8] = []
        var upgraded = false
        var message: [UInt8] = []
        var snapshotSeen = false
        /// The last version whose change arrived: where a new connection starts from.
        var version: Int?
        /// Connecting again: when to try, how many tries failed, and whether the server has been
        /// heard since.
        var retryAt: ContinuousClock.Instant?
        var failures = 0
        var rejoining = false
        /// The code of the server's close frame, if one came: after 4503 the wait stops growing at 2 s.
        var closeCode: UInt16?
    }

    /// Reads every window's socket as it becomes readable (epoll: the cost is the sockets that
    /// have something, not all of them, so thousands of windows cost the benchmark little).
    private func read(_ initial: [Window], _ connection: Connection) {
        var windows = initial
        var buffer = [UInt8](repeating: 0, count: 256 * 1024)
        let epoll = epoll_create1(0)
        defer { Glibc.close(epoll) }
        for index in windows.indices where windows[index].descriptor >= 0 {
            Self.watch(windows[index].descriptor, as: index, in: epoll)
        }
        var events = [epoll_event](repeating: epoll_event(), count: 1_024)
        var retrying: Set<Int> = []
        while !stopped.load(ordering: .relaxed) {
            if !retrying.isEmpty { reconnectDue(&windows, &retrying, epoll: epoll, connection) }
            let ready = epoll_wait(epoll, &events, Int32(events.count), retrying.isEmpty ? 100 : 10)
            guard ready > 0 else { continue }
            for event in events[0..<Int(ready)] {
                let index = Int(event.data.u64)
                let descriptor = windows[index].descriptor
                guard descriptor >= 0 else { continue }
                let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
                if count > 0 {
                    windows[index].pending += buffer[0..<count]
                    if Self.take(&windows[index], window: connection.first + index, recorder: connection.recorder) {
                        continue
                    }
                }
                lost(index, &windows, &retrying, epoll: epoll, connection)
            }
        }
    }

    private static func watch(_ descriptor: Int32, as index: Int, in epoll: Int32) {
        var event = epoll_event()
        event.events = EPOLLIN.rawValue
        event.data.u64 = UInt64(index)
        epoll_ctl(epoll, EPOLL_CTL_ADD, descriptor, &event)
    }

    /// Window `index`'s connection ended (or was refused): it is no longer read, and (with
    /// `reconnects`) connects again after its backoff.
    private func lost(
        _ index: Int, _ windows: inout [Window], _ retrying: inout Set<Int>, epoll: Int32, _ connection: Connection
    ) {
        if windows[index].descriptor >= 0 { epoll_ctl(epoll, EPOLL_CTL_DEL, windows[index].descriptor, nil) }
        windows[index].descriptor = -1
        guard connection.reconnects, !stopped.load(ordering: .relaxed) else { return }
        if !windows[index].rejoining { connection.recorder.dropped(window: connection.first + index) }
        let delay = EditorBackoff.delay(afterFailures: windows[index].failures, closeCode: windows[index].closeCode)
        windows[index].failures += 1
        windows[index].retryAt = .now + delay
        windows[index].rejoining = true
        retrying.insert(index)
    }

    private func reconnectDue(
        _ windows: inout [Window], _ retrying: inout Set<Int>, epoll: Int32, _ connection: Connection
    ) {
        let now = ContinuousClock.now
        for index in retrying {
            guard let due = windows[index].retryAt, due <= now else { continue }
            retrying.remove(index)
            windows[index].retryAt = nil
            let query = windows[index].version.map { "?version=\($0)" } ?? ""
            let path = "/api/documents/\(windows[index].id.uuidString)/live\(query)"
            windows[index].closeCode = nil  // a refused connection is not a 4503
            guard let socket = RawLiveSocket(port: connection.port, path: path) else {
                lost(index, &windows, &retrying, epoll: epoll, connection)
                continue
            }
            sockets.withLock { $0[index] = socket }
            windows[index].pending.removeAll()
            windows[index].message.removeAll()
            windows[index].upgraded = false
            windows[index].descriptor = socket.descriptor
            Self.watch(socket.descriptor, as: index, in: epoll)
        }
    }

    /// Handles the complete frames in a window's pending bytes; false if the server refused the
    /// upgrade.
    private static func take(_ window: inout Window, window index: Int, recorder: DeliveryRecorder) -> Bool {
        if !window.upgraded {
            let end: [UInt8] = [13, 10, 13, 10]
            let pending = window.pending
            guard let headerEnd = pending.indices.dropLast(3).first(where: { pending[$0..<$0 + 4].elementsEqual(end) })
            else { return true }
            guard pending.starts(with: Array("HTTP/1.1 101".utf8)) else { return false }
            window.pending.removeFirst(headerEnd + 4)
            window.upgraded = true
        }
        var start = 0
        let pending = window.pending
        while pending.count - start >= 2 {
            var length = Int(pending[start + 1] & 0x7F)
            let headerLength = length == 126 ? 4 : length == 127 ? 10 : 2
            guard pending.count - start >= headerLength else { break }
            if headerLength > 2 {
                length = pending[(start + 2)..<(start + headerLength)].reduce(0) { $0 << 8 | Int($1) }
            }
            guard pending.count - start >= headerLength + length else { break }
            let fin = pending[start] & 0x80 != 0
            let opcode = pending[start] & 0x0F
            let payload = pending[(start + headerLength)..<(start + headerLength + length)]
            start += headerLength + length
            if opcode == 8, payload.count >= 2 {  // close: its code decides the wait before reconnecting
                window.closeCode = UInt16(payload[payload.startIndex]) << 8 | UInt16(payload[payload.startIndex + 1])
            }
            guard opcode <= 2 else { continue }  // control frames: ping, pong, close
            window.message += payload
            guard fin else { continue }
            if window.rejoining {
                window.rejoining = false
                window.failures = 0
                recorder.rejoined(window: index)
            }
            if let version = arrived(
                window.message, snapshotSeen: &window.snapshotSeen, document: window.document, window: index,
                recorder: recorder)
            {
                window.version = version
            }
            window.message.removeAll(keepingCapacity: true)
        }
        window.pending.removeFirst(start)
        return true
    }

    private static let changePrefix = Array(#"{"type":"change","version":"#.utf8)

    /// Records a message; returns the version of a change.
    private static func arrived(
        _ message: [UInt8], snapshotSeen: inout Bool, document: Int, window: Int, recorder: DeliveryRecorder
    ) -> Int? {
        if !snapshotSeen {
            snapshotSeen = true
            recorder.snapshot()
            return nil
        }
        guard message.starts(with: changePrefix) else { return nil }
        var version = 0
        for byte in message.dropFirst(changePrefix.count) {
            guard byte >= 48, byte <= 57 else { break }
            version = version * 10 + Int(byte - 48)
        }
        recorder.arrived(document: document, version: version, window: window)
        return version
    }
}
