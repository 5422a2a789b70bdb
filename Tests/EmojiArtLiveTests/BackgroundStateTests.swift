import EmojiArtKit
import EmojiArtLive
import EmojiArtStore
import EmojiArtStoreSQLite
import Foundation
import Synchronization
import Testing

/// A fetch that serves fixture images by URL path, counting calls, optionally slowly.
final class FakeImageServer: Sendable {
    let calls = Mutex<[String]>([])
    let delays = Mutex<[String: Int]>([:])
    let cancelled = Mutex<[String]>([])

    var fetch: BackgroundImages.Fetch {
        { url in
            self.calls.withLock { $0.append(url.path) }
            let delay = self.delays.withLock { $0[url.path] ?? 0 }
            do {
                try await Task.sleep(for: .milliseconds(delay))
            } catch {
                self.cancelled.withLock { $0.append(url.path) }
                throw error
            }
            guard url.path.hasSuffix(".png") || url.path.hasSuffix(".gif") else {
                throw BackgroundImageError(reason: "The image server answered HTTP 404.")
            }
            let name = url.path.hasSuffix(".png") ? "red-7x5.png" : "anim-4x6.gif"
            let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent("Fixtures/images")
            return try StoredImage(data: try Data(contentsOf: fixtures.appendingPathComponent(name)))
        }
    }
}

@Suite("The background image state machine")
struct BackgroundStateTests {
    let server = FakeImageServer()
    let stores = Stores.inMemory()
    var store: any DocumentStore { stores.documents }

    func makeLibrary() -> DocumentLibrary {
        DocumentLibrary(store: stores.documents, images: BackgroundImages(store: stores.images, fetch: server.fetch))
    }

    func setBackground(_ library: DocumentLibrary, _ id: UUID, _ text: String?) async throws -> LiveDocumentState? {
        let background = try text.map { try Background(parsing: $0) } ?? .none
        return try await library.withDocument(id) { document in
            try await document.perform([.setBackground(background)], baseVersion: try await document.state().version)
        }
    }

    /// Waits until the state stops fetching (at most 2 s).
    func settled(_ library: DocumentLibrary, _ id: UUID) async throws -> BackgroundState? {
        for _ in 0..<200 {
            let state = try await library.withDocument(id) { try await $0.state().backgroundState }
            if case .fetching? = state {
                try await Task.sleep(for: .milliseconds(10))
                continue
            }
            return state
        }
        return nil
    }

    @Test func aURLIsFetchedThenFoundOrFailed() async throws {
        let library = makeLibrary()
        let id = try await library.create(try EmojiArtDocument()).id
        let fetching = try await setBackground(library, id, "https://images.test/cat.png")
        #expect(fetching?.backgroundState == .fetching(url: URL(string: "https://images.test/cat.png")))
        guard case .found(let imageID, 7, 5)? = try await settled(library, id) else {
            Issue.record("the image was not found")
            return
        }
        #expect(try await stores.images.loadImage(id: imageID)?.mimeType == "image/png")

        _ = try await setBackground(library, id, "https://images.test/missing.jpg")
        let failed = try await settled(library, id)
        #expect(
            failed
                == .failed(
                    url: URL(string: "https://images.test/missing.jpg"),
                    reason:
                        "Couldn't load image from https://images.test/missing.jpg: The image server answered HTTP 404.")
        )
        _ = try await setBackground(library, id, nil)
        #expect(try await settled(library, id) == BackgroundState.none)
    }

    @Test func aNewerBackgroundSupersedesAFetchInFlight() async throws {
        server.delays.withLock { $0["/slow.png"] = 300 }
        let library = makeLibrary()
        let id = try await library.create(try EmojiArtDocument()).id
        _ = try await setBackground(library, id, "https://images.test/slow.png")
        try await Task.sleep(for: .milliseconds(50))
        _ = try await setBackground(library, id, "https://images.test/fast.gif")
        guard case .found(_, 4, 6)? = try await settled(library, id) else {
            Issue.record("the newer background was not found")
            return
        }
        // The slow fetch finishes later; its result must not change the state.
        try await Task.sleep(for: .milliseconds(400))
        guard case .found(_, 4, 6)? = try await library.withDocument(id, { try await $0.state().backgroundState })
        else {
            Issue.record("a late result changed the state")
            return
        }
    }

    @Test func aDownloadNoDocumentWaitsForIsCancelled() async throws {
        server.delays.withLock { $0["/slow.png"] = 10_000 }
        let library = makeLibrary()
        let first = try await library.create(try EmojiArtDocument()).id
        let second = try await library.create(try EmojiArtDocument()).id
        _ = try await setBackground(library, first, "https://images.test/slow.png")
        _ = try await setBackground(library, second, "https://images.test/slow.png")
        for _ in 0..<200 where server.calls.withLock({ $0.isEmpty }) {
            try await Task.sleep(for: .milliseconds(10))
        }
        try await Task.sleep(for: .milliseconds(50))
        #expect(server.calls.withLock { $0 } == ["/slow.png"])

        // One document moves on: the other still waits, so the download goes on.
        _ = try await setBackground(library, first, "https://images.test/fast.gif")
        guard case .found(_, 4, 6)? = try await settled(library, first) else {
            Issue.record("the newer background was not found")
            return
        }
        #expect(server.cancelled.withLock { $0 }.isEmpty)

        // The last one moves on: the download is cancelled rather than run to its end.
        _ = try await setBackground(library, second, nil)
        for _ in 0..<200 where server.cancelled.withLock({ $0.isEmpty }) {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(server.cancelled.withLock { $0 } == ["/slow.png"])
        #expect(try await settled(library, second) == BackgroundState.none)
    }

    @Test func embeddedBytesSupersedeAFetchAndAreChecked() async throws {
        server.delays.withLock { $0["/slow.png"] = 300 }
        let library = makeLibrary()
        let id = try await library.create(try EmojiArtDocument()).id
        _ = try await setBackground(library, id, "https://images.test/slow.png")
        let gif = try fixture("anim-4x6.gif")
        _ = try await library.withDocument(id) { document in
            try await document.perform(
                [.setBackground(.image(data: gif, mimeType: "image/gif"))],
                baseVersion: try await document.state().version)
        }
        guard case .found(_, 4, 6)? = try await settled(library, id) else {
            Issue.record("embedded bytes were not used")
            return
        }
        try await Task.sleep(for: .milliseconds(400))
        guard case .found(_, 4, 6)? = try await library.withDocument(id, { try await $0.state().backgroundState })
        else {
            Issue.record("the superseded fetch changed the state")
            return
        }
        // The original app's truncated JPEG: a failure with the reason, not a broken picture.
        let truncated = try EmojiArtFile.read(Array(try fixture("../2021-imagedata-truncated-jpeg.emojiart"))).document
        let opened = try await library.create(truncated).id
        guard case .failed(nil, let reason)? = try await settled(library, opened) else {
            Issue.record("the truncated JPEG did not fail")
            return
        }
        #expect(reason.contains("truncated"))
    }

    @Test func severalDocumentsShareOneDownloadAndTheStoreRemembersIt() async throws {
        server.delays.withLock { $0["/shared.png"] = 100 }
        let library = makeLibrary()
        var ids: [UUID] = []
        for _ in 0..<4 { ids.append(try await library.create(try EmojiArtDocument()).id) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for id in ids {
                group.addTask { _ = try await setBackground(library, id, "https://images.test/shared.png") }
            }
            try await group.waitForAll()
        }
        for id in ids {
            guard case .found? = try await settled(library, id) else {
                Issue.record("a document did not get the shared image")
                return
            }
        }
        #expect(server.calls.withLock { $0.filter { $0 == "/shared.png" }.count } == 1)
        // A new library on the same store (a restart) opens the document from the stored bytes.
        let restarted = makeLibrary()
        guard case .found? = try await settled(restarted, ids[0]) else {
            Issue.record("the reopened document has no image")
            return
        }
        #expect(server.calls.withLock { $0.filter { $0 == "/shared.png" }.count } == 1)
    }

    func fixture(_ name: String) throws -> Data {
        try Data(
            contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent("Fixtures/images/\(name)"))
    }
}
