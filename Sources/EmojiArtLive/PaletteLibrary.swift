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
        defer { savesInFlight -= 1 }
        do {
            try await save.value
        } catch {
            // Start again from what the store holds.
            list = nil
            loading = nil
            if let reloaded = try? await current() { publish(reloaded) }
            throw error
        }
        publish(changed)
        return result
    }

    /// Follows the palettes: the list now, then every later list (only the newest one waits
    /// for a slow reader, so nothing piles up).
    public func subscribe() async throws -> (current: PaletteSnapshot, updates: AsyncStream<PaletteSnapshot>) {
        let current = PaletteSnapshot(version: version, palettes: try await current().palettes)
        return (current, windows.subscribe().events)
    }

    /// Takes the stored list if it differs from this library's (another process changed it),
    /// telling every subscriber. Does nothing while a save is in flight.
    public func refreshFromStore() async {
        guard let list, savesInFlight == 0 else { return }
        guard let stored = try? await store.loadPalettes(owner: owner), let fresh = try? PaletteList(stored) else {
            return
        }
        // Unchanged here meanwhile, and different in the store.
        guard savesInFlight == 0, self.list == list, fresh != list else { return }
        self.list = fresh
        publish(fresh)
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
