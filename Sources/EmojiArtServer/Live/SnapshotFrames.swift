import EmojiArtLive
import EmojiArtWire
import Foundation
import NIOCore
import NIOPosix

/// Each document's `snapshot` message, encoded once per state and shared by every window that
/// opens the document in that state — as one buffer, which a window that never reads holds no
/// copy of. Encoding runs on NIO's blocking-work thread pool, so a 100,000-emoji document doesn't
/// hold up the threads that answer everyone else.
///
/// A document keeps only its newest snapshot; at most ``capacity`` documents' are kept, the one
/// asked for longest ago dropped first.
actor SnapshotFrames {
    /// What makes two states' snapshots equal: the same version of the same document, with the
    /// same background state (which changes between versions).
    private struct Key: Equatable {
        var version: Int
        var backgroundState: BackgroundState
    }

    private struct Entry {
        var key: Key
        var frame: Task<ByteBuffer, Never>
        var used: UInt64
    }

    let capacity: Int
    private var entries: [UUID: Entry] = [:]
    private var clock: UInt64 = 0

    init(capacity: Int = 32) {
        self.capacity = capacity
    }

    /// The snapshot message of `state` as a text frame's payload.
    func frame(for state: LiveDocumentState) async -> ByteBuffer {
        let key = Key(version: state.version, backgroundState: state.backgroundState)
        clock += 1
        if let entry = entries[state.id], entry.key == key {
            entries[state.id]?.used = clock
            return await entry.frame.value
        }
        // A window on a newer state replaces an older one; a late window on an older state
        // encodes its own rather than replace the newer.
        if let entry = entries[state.id], entry.key.version > key.version {
            return await Self.encode(state)
        }
        let frame = Task { await Self.encode(state) }
        entries[state.id] = Entry(key: key, frame: frame, used: clock)
        if entries.count > capacity, let oldest = entries.min(by: { $0.value.used < $1.value.used })?.key {
            entries[oldest] = nil
        }
        return await frame.value
    }

    private static func encode(_ state: LiveDocumentState) async -> ByteBuffer {
        let encode: @Sendable () -> ByteBuffer = { ByteBuffer(bytes: LiveMessages.snapshotBytes(state)) }
        return (try? await NIOThreadPool.singleton.runIfActive(encode)) ?? encode()
    }
}
