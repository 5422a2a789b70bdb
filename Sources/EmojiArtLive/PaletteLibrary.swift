import EmojiArtKit
import EmojiArtStore
import Foundation

/// The palettes shared by every document and window, kept in the store. The built-ins are
/// stored on first start.
public actor PaletteLibrary {
    private let store: any DocumentStore
    private var list: PaletteList?

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
        try await store.savePalettes(changed.palettes)
        list = changed
        return result
    }

    private func current() async throws -> PaletteList {
        if let list { return list }
        let loaded: PaletteList
        if let stored = try await store.loadPalettes() {
            loaded = try PaletteList(stored)
        } else {
            loaded = PaletteList()
            try await store.savePalettes(loaded.palettes)
        }
        list = loaded
        return loaded
    }
}
