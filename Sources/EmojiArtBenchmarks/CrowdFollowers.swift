import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The crowd's following windows as plain sockets, all read by one thread, as one event-driven
/// client would read them: the benchmark measures the server's fan-out, not a WebSocket client
/// library's (a thousand async clients in this process took as much CPU as the server, on the
/// same two cores). Each window counts its snapshot and records each `change` as it arrives.
final class CrowdFollowers: Sendable {
    private let sockets: [RawLiveSocket]
    private let stopped = Atomic<Bool>(false)

    /// Windows `first`, `first + 1`… on document `id`, reporting to `recorder` as document 0.
    init(count: Int, first: Int, port: Int, id: UUID, recorder: DeliveryRecorder) {
        sockets = (0..<count).compactMap { _ in RawLiveSocket(port: port, document: id) }
        let descriptors = sockets.map(\.descriptor)
        Thread { [self] in read(descriptors, first: first, recorder: recorder) }.start()
    }

    var count: Int { sockets.count }

    func stop() {
        stopped.store(true, ordering: .relaxed)
        for socket in sockets { socket.close() }
    }

    private struct Window {
        var pending: [UInt8] = []
        var upgraded = false
        var message: [UInt8] = []
        var snapshotSeen = false
        var closed = false
    }

    private func read(_ descriptors: [Int32], first: Int, recorder: DeliveryRecorder) {
        var windows = [Window](repeating: Window(), count: descriptors.count)
        var buffer = [UInt8](repeating: 0, count: 256 * 1024)
        var polls = descriptors.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        while !stopped.load(ordering: .relaxed) {
            guard poll(&polls, nfds_t(polls.count), 100) > 0 else { continue }
            for index in polls.indices where polls[index].revents != 0 {
                polls[index].revents = 0
                let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptors[index], $0.baseAddress, $0.count) }
                guard count > 0 else {
                    windows[index].closed = true
                    polls[index].fd = -1  // poll skips it from now on
                    continue
                }
                windows[index].pending += buffer[0..<count]
                Self.take(&windows[index], window: first + index, recorder: recorder)
            }
        }
    }

    /// Handles the complete frames in a window's pending bytes.
    private static func take(_ window: inout Window, window index: Int, recorder: DeliveryRecorder) {
        if !window.upgraded {
            let end: [UInt8] = [13, 10, 13, 10]
            let pending = window.pending
            guard let headerEnd = pending.indices.dropLast(3).first(where: { pending[$0..<$0 + 4].elementsEqual(end) })
            else { return }
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
            guard opcode <= 2 else { continue }  // control frames: ping, pong, close
            window.message += payload
            guard fin else { continue }
            arrived(window.message, snapshotSeen: &window.snapshotSeen, window: index, recorder: recorder)
            window.message.removeAll(keepingCapacity: true)
        }
        window.pending.removeFirst(start)
    }

    private static let changePrefix = Array(#"{"type":"change","version":"#.utf8)

    private static func arrived(_ message: [UInt8], snapshotSeen: inout Bool, window: Int, recorder: DeliveryRecorder) {
        if !snapshotSeen {
            snapshotSeen = true
            recorder.snapshot()
            return
        }
        guard message.starts(with: changePrefix) else { return }
        var version = 0
        for byte in message.dropFirst(changePrefix.count) {
            guard byte >= 48, byte <= 57 else { break }
            version = version * 10 + Int(byte - 48)
        }
        recorder.arrived(document: 0, version: version, window: window)
    }
}
