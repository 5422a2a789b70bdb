import EmojiArtKit
import EmojiArtLive
import Foundation
import NIOCore
import Testing

@testable import EmojiArtServer

/// A snapshot is encoded once per document state and every window that opens the document in
/// that state shares the one buffer.
struct SnapshotFramesTests {
    private func state(_ id: UUID, version: Int, background: BackgroundState = .none) throws -> LiveDocumentState {
        LiveDocumentState(
            id: id,
            document: try EmojiArtDocument(
                title: "Crowd", emojis: [Emoji(id: 1, text: "🚚", position: .zero, size: 40)], nextEmojiID: 2),
            version: version, undoActionName: nil, redoActionName: nil, createdAt: Date(timeIntervalSince1970: 0),
            updatedAt: Date(timeIntervalSince1970: 0), backgroundState: background)
    }

    private func storage(_ buffer: ByteBuffer) -> UnsafeRawPointer? {
        buffer.withUnsafeReadableBytes { UnsafeRawPointer($0.baseAddress) }
    }

    @Test func windowsOnOneStateShareOneBuffer() async throws {
        let frames = SnapshotFrames()
        let id = UUID()
        let first = await frames.frame(for: try state(id, version: 3))
        let second = await frames.frame(for: try state(id, version: 3))
        #expect(storage(first) == storage(second))
        let text = String(buffer: first)
        #expect(text.hasPrefix(#"{"type":"snapshot","state":{"#))
        #expect(text.contains(#""version":3"#))
    }

    @Test func aNewVersionOrBackgroundStateIsEncodedAfresh() async throws {
        let frames = SnapshotFrames()
        let id = UUID()
        let old = await frames.frame(for: try state(id, version: 3))
        let newer = await frames.frame(for: try state(id, version: 4))
        #expect(storage(old) != storage(newer))
        #expect(String(buffer: newer).contains(#""version":4"#))
        let fetching = await frames.frame(for: try state(id, version: 4, background: .fetching(url: nil)))
        #expect(storage(fetching) != storage(newer))
        // A late window on the older version gets its own, and the newest stays shared.
        _ = await frames.frame(for: try state(id, version: 3))
        let again = await frames.frame(for: try state(id, version: 4, background: .fetching(url: nil)))
        #expect(storage(again) == storage(fetching))
    }

    @Test func onlySoManyDocumentsAreKept() async throws {
        let frames = SnapshotFrames(capacity: 2)
        let ids = [UUID(), UUID(), UUID()]
        let first = await frames.frame(for: try state(ids[0], version: 1))
        for id in ids.dropFirst() { _ = await frames.frame(for: try state(id, version: 1)) }
        let firstAgain = await frames.frame(for: try state(ids[0], version: 1))
        #expect(storage(first) != storage(firstAgain), "the document asked for longest ago was dropped")
    }
}
