import Dispatch
import Foundation
import Logging
import Synchronization

/// Log lines written in batches: a line is appended to a buffer, and the buffer is written with
/// one `write(2)` at most ``delay`` later (at once past ``batchBytes``), in order, from one
/// serial queue. A busy server makes one system call per batch rather than one per request — the
/// access log's line per request was most of what the log, metrics and tracing cost an edit.
///
/// What a `kill -9` catches in the buffer (at most ``delay``'s worth of lines) is lost; a stop
/// by signal, an exit and a crash that goes through `exit` write it (``flush()``, `atexit`). If
/// the reader stops reading (a stalled pipe), at most ``maximumBytes`` wait; lines past that are
/// counted, dropped, and the count written once the reader is back.
public final class LogOutput: Sendable {
    /// How long a line may wait for others to go with it.
    public static let delay = DispatchTimeInterval.milliseconds(10)
    /// A batch this big is written without waiting.
    static let batchBytes = 64 * 1024
    /// At most this much waits for a reader that doesn't read.
    static let maximumBytes = 8 * 1024 * 1024

    public static let standardOutput = LogOutput(descriptor: 1)
    public static let standardError = LogOutput(descriptor: 2)

    private struct Pending {
        var bytes: [UInt8] = []
        /// A write after ``delay`` is on its way.
        var scheduled = false
        /// A write at once is on its way.
        var hurried = false
        var dropped = 0
    }

    private let descriptor: Int32
    private let pending = Mutex(Pending())
    private let queue: DispatchQueue

    init(descriptor: Int32) {
        self.descriptor = descriptor
        queue = DispatchQueue(label: "emojiart.log.\(descriptor)")
        Self.flushAtExit()
    }

    /// Appends `line` (whole lines' UTF-8, with their newlines).
    public func append(_ line: [UInt8]) {
        let schedule = pending.withLock { pending -> DispatchTimeInterval? in
            guard pending.bytes.count < Self.maximumBytes else {
                pending.dropped += 1
                return nil
            }
            pending.bytes.append(contentsOf: line)
            if pending.bytes.count >= Self.batchBytes, !pending.hurried {
                pending.hurried = true
                return .never
            }
            guard !pending.scheduled else { return nil }
            pending.scheduled = true
            return Self.delay
        }
        switch schedule {
        case nil: break
        case .never?: queue.async { self.writePending() }
        case let delay?: queue.asyncAfter(deadline: .now() + delay) { self.writePending() }
        }
    }

    /// Writes what waits now (and waits for batches on their way).
    public func flush() {
        queue.sync { writePending() }
    }

    /// On the queue: writes the buffer, whole.
    private func writePending() {
        let bytes = pending.withLock { pending -> [UInt8] in
            (pending.scheduled, pending.hurried) = (false, false)
            defer { (pending.bytes, pending.dropped) = ([], 0) }
            guard pending.dropped > 0 else { return pending.bytes }
            return pending.bytes
                + Array("… \(pending.dropped) log lines dropped: the log's reader was not keeping up.\n".utf8)
        }
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = Foundation.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0, errno == EINTR { continue }
                if written <= 0 { return }
                offset += written
            }
        }
    }

    private static let registered = Atomic<Bool>(false)

    private static func flushAtExit() {
        guard !registered.exchange(true, ordering: .relaxed) else { return }
        atexit {
            LogOutput.standardOutput.flush()
            LogOutput.standardError.flush()
        }
    }
}
