import EmojiArtKit
import EmojiArtLive
import Foundation
import Synchronization
import Testing

@testable import EmojiArtLive
@testable import EmojiArtServer

@Suite("Thumbnails are redrawn on a coalescing schedule")
struct ThumbnailCacheTests {
    func state(_ id: UUID, version: Int) throws -> LiveDocumentState {
        LiveDocumentState(
            id: id, document: try EmojiArtDocument(title: "T"), version: version, undoActionName: nil,
            redoActionName: nil, createdAt: Date(), updatedAt: Date())
    }

    @Test func changesInQuickSuccessionCostOneRedrawAtTheEndOfTheInterval() async throws {
        let draws = Atomic<Int>(0)
        let cache = ThumbnailCache(minimumInterval: .milliseconds(8_000)) { state in
            draws.add(1, ordering: .relaxed)
            try await Task.sleep(for: .milliseconds(20))
            return [UInt8(state.version)]
        }
        let id = UUID()
        let latest = Mutex(0)
        let current: @Sendable () async -> LiveDocumentState? = { try? self.state(id, version: latest.withLock { $0 }) }

        // Concurrent first requests share one drawing.
        async let first = cache.thumbnail(for: try state(id, version: 0), current: current)
        async let second = cache.thumbnail(for: try state(id, version: 0), current: current)
        let (a, b) = try await (first, second)
        #expect(a.png == [0] && b.png == [0])
        #expect(draws.load(ordering: .relaxed) == 1)

        // Ten changes within the interval: the old picture is served, no drawing yet.
        for version in 1...10 {
            latest.withLock { $0 = version }
            #expect(try await cache.thumbnail(for: try state(id, version: version), current: current).version == 0)
        }
        #expect(draws.load(ordering: .relaxed) == 1)
        // At the end of the interval one redraw of the newest version. (The interval is long
        // enough that a busy machine — the whole suite runs at once on two cores, where a
        // synchronous fuzz test can hold both of the pool's threads for seconds — still makes
        // the ten requests within it: 4 s was seen to be too short.)
        try await Task.sleep(for: .milliseconds(9_000))
        #expect(draws.load(ordering: .relaxed) == 2)
        #expect(try await cache.thumbnail(for: try state(id, version: 10), current: current).png == [10])
        #expect(draws.load(ordering: .relaxed) == 2)

        // After the interval a change is drawn at once.
        try await Task.sleep(for: .milliseconds(8_100))
        latest.withLock { $0 = 11 }
        #expect(try await cache.thumbnail(for: try state(id, version: 11), current: current).png == [11])
        #expect(draws.load(ordering: .relaxed) == 3)
    }
}
