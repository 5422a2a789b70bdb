import NIOCore
import Synchronization

/// The most recently served images' bytes, ready to send, up to a byte budget: a background
/// shown in many windows is read from the database once, not once per window. Images never
/// change (their id is their hash), so entries never go stale; the least recently used are
/// dropped first.
final class ImageCache: Sendable {
    struct Entry: Sendable {
        var mimeType: String
        var bytes: ByteBuffer
        var lastUse: UInt64
    }

    private struct State {
        var entries: [String: Entry] = [:]
        var totalBytes = 0
        var clock: UInt64 = 0
    }

    let budget: Int
    private let state = Mutex(State())

    init(budget: Int = 64 * 1024 * 1024) {
        self.budget = budget
    }

    func image(id: String) -> (mimeType: String, bytes: ByteBuffer)? {
        state.withLock { state in
            guard var entry = state.entries[id] else { return nil }
            state.clock += 1
            entry.lastUse = state.clock
            state.entries[id] = entry
            return (entry.mimeType, entry.bytes)
        }
    }

    func insert(id: String, mimeType: String, bytes: ByteBuffer) {
        guard bytes.readableBytes <= budget / 4 else { return }  // one huge image must not evict all
        state.withLock { state in
            guard state.entries[id] == nil else { return }
            state.clock += 1
            state.entries[id] = Entry(mimeType: mimeType, bytes: bytes, lastUse: state.clock)
            state.totalBytes += bytes.readableBytes
            while state.totalBytes > budget,
                let oldest = state.entries.min(by: { $0.value.lastUse < $1.value.lastUse })
            {
                state.entries[oldest.key] = nil
                state.totalBytes -= oldest.value.bytes.readableBytes
            }
        }
    }
}
