import EmojiArtKit
import EmojiArtStore
import Foundation

/// The palettes shared by every document and window, kept in the store. The built-ins are
/// stored on first start.
///
/// Changes apply to the list at once, in arrival order, and are saved one after another, so
/// concurrent changes never overwrite each other and the store ends with the latest list.
/// Every window following the palettes (``subscribe()``) hears each new list; a change made to
/// the store by another process (the CLI) is picked up by ``refreshFromStore()``.
public actor PaletteLibrary {
    private let store: any PaletteStore
    /// Whose palettes these are.
    public nonisolated let owner: UUID
    private var list: PaletteList?
    private var loading: Task<PaletteList, any Error>?
    private var lastSave: Task<Void, any Error>?
    private var savesInFlight = 0
    /// A refresh asked for while saves were in flight: done when the last one ends, so another
    /// process's change that lands meanwhile is not missed.
    private var refreshWanted = false
    /// Counts the lists this library has served: each change is the next version.
    private var version = 1
    /// Only the newest list waits for a slow window, so nothing piles up.
    private let windows = Broadcaster<PaletteSnapshot>(policy: .newest(1))

    public init(store: any PaletteStore, owner: UUID = LocalUser.id) {
        self.store = store
        self.owner = owner
    }

    public func palettes() async throws -> [Palette] {
        try await current().palettes
    }

    /// Applies a change to the list and stores the result; on any error nothing changes.
    @discardableResult
    public func update<T: Sendable>(_ change: @Sendable (inout PaletteList) throws -> T) async throws -> T {
        let before = try await current()
        var changed = before
        let result = try change(&changed)
        guard changed != before else { return result }
        list = changed
        let previous = lastSave
        let palettes = changed.palettes
        let store = self.store
        let save = Task {
            _ = await previous?.result
            try await store.savePalettes(palettes, owner: owner)
        }
        lastSave = save
        savesInFlight += 1
        do {
            try await save.value
        } catch {
            savesInFlight -= 1
            // Start again from what the store holds.
            list = nil
            loading = nil
            if let reloaded = try? await current() { publish(reloaded) }
            await refreshIfWanted()
            throw error
        }
        savesInFlight -= 1
        publish(changed)
        await refreshIfWanted()
        return result
    }

    /// Follows the palettes: the list now, then every later list (only the newest one waits
    /// for a slow reader, so nothing piles up).
    public func subscribe() async throws -> (current: PaletteSnapshot, updates: AsyncStream<PaletteSnapshot>) {
        let current = PaletteSnapshot(version: version, palettes: try await current().palettes)
        return (current, windows.subscribe().events)
    }

    /// Follows the palettes with a function instead of a stream, for a connection with no task
    /// of its own: `receive` gets the list now, at once, then every later list, in order, on this
    /// library's executor, until ``unfollow(_:)`` with the id returned here. It returns false to
    /// stop following.
    public func follow(receive: @escaping @Sendable (PaletteSnapshot) -> Bool) async throws -> UInt64 {
        let palettes = try await current().palettes
        // No suspension from here on: the list now goes out before any later one.
        _ = receive(PaletteSnapshot(version: version, palettes: palettes))
        return windows.subscribe(receive: receive, ended: {})
    }

    /// Stops a ``follow(receive:)``.
    public nonisolated func unfollow(_ id: UInt64) {
        windows.unsubscribe(id)
    }

    /// Takes the stored list if it differs from this library's (another process changed it),
    /// telling every subscriber. While a save is in flight it looks again once the saves end.
    public func refreshFromStore() async {
        guard savesInFlight == 0 else {
            refreshWanted = true
            return
        }
        guard let list else { return }
        guard let stored = try? await store.loadPalettes(owner: owner), let fresh = try? PaletteList(stored) else {
            return
        }
        guard self.list == list else {
            // A save ended meanwhile: read again now; one still running reads again when done.
            if savesInFlight == 0 { await refreshFromStore() } else { refreshWanted = true }
            return
        }
        guard fresh != list else { return }
        self.list = fresh
        publish(fresh)
    }

    private func refreshIfWanted() async {
        guard refreshWanted, savesInFlight == 0 else { return }
        refreshWanted = false
        await refreshFromStore()
    }

    /// How many windows follow the palettes (for tests).
    public var subscriberCount: Int { windows.count }

    private func publish(_ list: PaletteList) {
        version += 1
        let snapshot = PaletteSnapshot(version: version, palettes: list.palettes)
        windows.send(snapshot)
    }

    /// The latest list, loading (and on first start seeding) it once.
    private func current() async throws -> PaletteList {
        if let list { return list }
        let store = self.store
        let task =
            loading
            ?? Task {
                if let stored = try await store.loadPalettes(owner: owner) { return try PaletteList(stored) }
                let builtIns = PaletteList()
                try await store.savePalettes(builtIns.palettes, owner: owner)
                return builtIns
            }
        loading = task
        let loaded = try await task.value
        if list == nil { list = loaded }
        return list ?? loaded
    }
}

/// The palettes at one version, as windows receive them.
public struct PaletteSnapshot: Sendable, Equatable {
    public var version: Int
    public var palettes: [Palette]
}

/// Each user's palettes: one ``PaletteLibrary`` per user (in local mode, the local user's),
/// made when first asked for and kept while the server runs.
public actor PaletteLibraries {
    private let store: any PaletteStore
    private var libraries: [UUID: PaletteLibrary] = [:]

    public init(store: any PaletteStore) {
        self.store = store
    }

    public func library(for owner: UUID) -> PaletteLibrary {
        if let library = libraries[owner] { return library }
        let library = PaletteLibrary(store: store, owner: owner)
        libraries[owner] = library
        return library
    }

    /// Every open library picks up changes made to the store elsewhere (the CLI, other servers).
    public func refreshFromStore() async {
        for library in libraries.values { await library.refreshFromStore() }
    }
}
