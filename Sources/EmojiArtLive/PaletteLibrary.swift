import EmojiArtKit
import EmojiArtStore
import Foundation

/// The palettes shared by every document and window, kept in the store. The built-ins are
/// stored on first start.
///
/// Changes apply to the list at once, in arrival order, and are saved one after another, so
/// concurrent changes never overwrite each other and the store ends with the latest list.
public actor PaletteLibrary {
    private let store: any DocumentStore
    private var list: PaletteList?
    private var loading: Task<PaletteList, any Error>?
    private var lastSave: Task<Void, any Error>?

    public init(store: any DocumentStore) {
        self.store = store
    }

    public func palettes() async throws -> [Palette] {
        try await current().palettes
    }

    /// Applies a change to the list and stores the result; on any error nothing changes.
    @discardableResult
    public func update<T: Sendable>(_ change: @Sendable (inout PaletteList) throws -> T) async throws -> T {
        var changed = try await current()
        let result = try change(&changed)
        list = changed
        let previous = lastSave
        let palettes = changed.palettes
        let store = self.store
        let save = Task {
            _ = await previous?.result
            try await store.savePalettes(palettes)
        }
        lastSave = save
        do {
            try await save.value
        } catch {
            // Start again from what the store holds.
            list = nil
            loading = nil
            throw error
        }
        return result
    }

    /// The latest list, loading (and on first start seeding) it once.
    private func current() async throws -> PaletteList {
        if let list { return list }
        let store = self.store
        let task =
            loading
            ?? Task {
                if let stored = try await store.loadPalettes() { return try PaletteList(stored) }
                let builtIns = PaletteList()
                try await store.savePalettes(builtIns.palettes)
                return builtIns
            }
        loading = task
        let loaded = try await task.value
        if list == nil { list = loaded }
        return list ?? loaded
    }
}
