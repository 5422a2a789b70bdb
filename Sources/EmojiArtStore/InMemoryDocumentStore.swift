import EmojiArtKit
import Foundation
import Synchronization

/// A store that keeps everything in memory: for tests and `emojiart serve --data :memory:`.
public final class InMemoryDocumentStore: DocumentStore {
    private struct Contents {
        var snapshots: [UUID: StoredDocument] = [:]
        var summaries: [UUID: DocumentSummary] = [:]
        var logs: [UUID: [LogEntry]] = [:]
        var palettes: [Palette]?
        var images: [String: StoredImage] = [:]
        var imageSources: [String: String] = [:]
    }

    private let contents = Mutex(Contents())

    public init() {}

    public var kind: String { "memory" }

    public func listDocuments() async throws -> [DocumentSummary] {
        contents.withLock { Array($0.summaries.values) }.sorted { $0.updatedAt > $1.updatedAt }
    }

    public func createDocument(_ record: StoredDocument) async throws {
        contents.withLock {
            $0.snapshots[record.id] = record
            $0.summaries[record.id] = record.summary
            $0.logs[record.id] = []
        }
    }

    public func loadDocument(id: UUID) async throws -> (snapshot: StoredDocument, log: [LogEntry])? {
        contents.withLock { contents in
            contents.snapshots[id].map { ($0, contents.logs[id] ?? []) }
        }
    }

    public func append(_ entries: [LogEntry], to id: UUID, summary: DocumentSummary) async throws {
        try contents.withLock { contents in
            guard let current = contents.summaries[id] else { throw StoreError.notFound(id) }
            guard let first = entries.first else { return }
            guard first.version == current.version + 1 else {
                throw StoreError.versionConflict(id: id, expected: first.version - 1)
            }
            contents.logs[id, default: []].append(contentsOf: entries)
            contents.summaries[id] = summary
        }
    }

    public func saveSnapshot(_ snapshot: StoredDocument) async throws {
        contents.withLock { contents in
            guard let stored = contents.snapshots[snapshot.id], stored.version < snapshot.version else { return }
            contents.snapshots[snapshot.id] = snapshot
            contents.logs[snapshot.id]?.removeAll { $0.version <= snapshot.version }
        }
    }

    public func deleteDocument(id: UUID) async throws -> Bool {
        contents.withLock { contents in
            contents.logs[id] = nil
            contents.summaries[id] = nil
            return contents.snapshots.removeValue(forKey: id) != nil
        }
    }

    public func loadPalettes() async throws -> [Palette]? {
        contents.withLock { $0.palettes }
    }

    public func savePalettes(_ palettes: [Palette]) async throws {
        contents.withLock { $0.palettes = palettes }
    }

    public func saveImage(_ image: StoredImage) async throws {
        contents.withLock { contents in
            if contents.images[image.id] == nil { contents.images[image.id] = image }
        }
    }

    public func loadImage(id: String) async throws -> StoredImage? {
        contents.withLock { $0.images[id] }
    }

    public func saveImageSource(_ url: String, imageID: String) async throws {
        contents.withLock { $0.imageSources[url] = imageID }
    }

    public func imageID(forSource url: String) async throws -> String? {
        contents.withLock { $0.imageSources[url] }
    }

    /// How many log entries a document has (for compaction tests).
    public func logLength(of id: UUID) -> Int {
        contents.withLock { $0.logs[id]?.count ?? 0 }
    }
}
