import EmojiArtLive
import Foundation

/// Thumbnails of documents for the document browser, drawn on demand and kept in memory.
///
/// A thumbnail is redrawn when its document has changed, but at most once per
/// ``minimumInterval`` per document: a request in between gets the previous picture and
/// schedules one redraw at the end of the interval, so a document edited many times a second
/// costs one drawing per interval however often it is asked for. Requests that arrive while a
/// drawing is under way share it.
actor ThumbnailCache {
    struct Thumbnail: Sendable {
        var version: Int
        var png: [UInt8]
    }

    typealias Draw = @Sendable (LiveDocumentState) async throws -> [UInt8]

    private struct Entry {
        var thumbnail: Thumbnail
        var drawnAt: ContinuousClock.Instant
        var lastUsed: UInt64
    }

    let minimumInterval: Duration
    let capacity: Int
    private let draw: Draw
    private var entries: [UUID: Entry] = [:]
    private var drawing: [UUID: Task<Thumbnail, any Error>] = [:]
    private var scheduled: Set<UUID> = []
    private var clock: UInt64 = 0
    /// How many drawings were made (for tests).
    private(set) var drawings = 0

    init(minimumInterval: Duration = .seconds(2), capacity: Int = 1_000, draw: @escaping Draw) {
        self.minimumInterval = minimumInterval
        self.capacity = capacity
        self.draw = draw
    }

    /// The thumbnail for `state` (the document as it is now): the cached one if it is of this
    /// version or was drawn less than ``minimumInterval`` ago, else a new drawing.
    func thumbnail(
        for state: LiveDocumentState, current: @escaping @Sendable () async -> LiveDocumentState?
    ) async throws -> Thumbnail {
        clock += 1
        if var entry = entries[state.id] {
            entry.lastUsed = clock
            entries[state.id] = entry
            if entry.thumbnail.version == state.version { return entry.thumbnail }
            let age = ContinuousClock.now - entry.drawnAt
            if age < minimumInterval {
                scheduleRedraw(state.id, after: minimumInterval - age, current: current)
                return entry.thumbnail
            }
        }
        return try await redraw(state)
    }

    /// Forgets a document's thumbnail (it was deleted).
    func remove(_ id: UUID) {
        entries[id] = nil
    }

    private func redraw(_ state: LiveDocumentState) async throws -> Thumbnail {
        if let task = drawing[state.id] { return try await task.value }
        let draw = self.draw
        let task = Task { Thumbnail(version: state.version, png: try await draw(state)) }
        drawing[state.id] = task
        defer { drawing[state.id] = nil }
        let thumbnail = try await task.value
        drawings += 1
        clock += 1
        entries[state.id] = Entry(thumbnail: thumbnail, drawnAt: .now, lastUsed: clock)
        evictIfNeeded()
        return thumbnail
    }

    private func scheduleRedraw(
        _ id: UUID, after delay: Duration, current: @escaping @Sendable () async -> LiveDocumentState?
    ) {
        guard scheduled.insert(id).inserted else { return }
        Task {
            try? await Task.sleep(for: delay)
            await self.finishScheduled(id, current: current)
        }
    }

    private func finishScheduled(_ id: UUID, current: @Sendable () async -> LiveDocumentState?) async {
        scheduled.remove(id)
        guard let state = await current(), entries[id]?.thumbnail.version != state.version else { return }
        _ = try? await redraw(state)
    }

    private func evictIfNeeded() {
        guard entries.count > capacity else { return }
        let oldest = entries.sorted { $0.value.lastUsed < $1.value.lastUsed }.prefix(entries.count - capacity)
        for (id, _) in oldest { entries[id] = nil }
    }
}
