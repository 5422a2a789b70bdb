import Foundation

/// The ordered list of palettes shared by all documents, with the rules that keep it sound:
/// it is never empty, ids are unique, and names are valid.
public struct PaletteList: Equatable, Sendable {
    public private(set) var palettes: [Palette]

    /// The built-in palettes.
    public init() {
        self.palettes = Palette.builtIns
    }

    /// - Throws: if `palettes` is empty, repeats an id, or has an invalid name.
    public init(_ palettes: [Palette]) throws {
        guard !palettes.isEmpty else {
            throw EmojiArtError(.lastPalette, "there must be at least one palette.")
        }
        var ids = Set<UUID>()
        for (index, palette) in palettes.enumerated() {
            try Palette.validateName(palette.name, path: "[\(index)].name")
            guard ids.insert(palette.id).inserted else {
                throw EmojiArtError(.invalidFile, "palette id \(palette.id) appears twice.", path: "[\(index)].id")
            }
        }
        self.palettes = palettes
    }

    public subscript(id id: UUID) -> Palette? { palettes.first { $0.id == id } }

    public func index(of id: UUID) -> Int? { palettes.firstIndex { $0.id == id } }

    /// The palette `offset` places after (or, negative, before) the one with `id`, wrapping
    /// around both ends; the first palette if `id` is unknown (e.g. it was deleted).
    public func palette(_ offset: Int, from id: UUID?) -> Palette {
        guard let id, let index = index(of: id) else { return palettes[0] }
        let count = palettes.count
        return palettes[((index + offset % count) % count + count) % count]
    }

    /// Inserts a palette at `index` (clamped), e.g. a new palette right after the current one.
    @discardableResult
    public mutating func insert(_ palette: Palette, at index: Int? = nil) throws -> Palette {
        try Palette.validateName(palette.name)
        guard self[id: palette.id] == nil else {
            throw EmojiArtError(.invalidFile, "a palette with id \(palette.id) already exists.")
        }
        palettes.insert(palette, at: min(max(index ?? palettes.count, 0), palettes.count))
        return palette
    }

    /// Deletes a palette; the last one can never be deleted.
    public mutating func remove(id: UUID) throws {
        let index = try existingIndex(id)
        guard palettes.count > 1 else {
            throw EmojiArtError(
                .lastPalette, "\"\(palettes[index].name)\" is the last palette and can't be deleted; add another first."
            )
        }
        palettes.remove(at: index)
    }

    public mutating func rename(id: UUID, to name: String) throws {
        let index = try existingIndex(id)
        try Palette.validateName(name)
        palettes[index].name = name
    }

    /// Adds emojis to a palette (only emoji kept, duplicates dropped, new ones first).
    public mutating func addEmojis(_ text: String, to id: UUID) throws {
        palettes[try existingIndex(id)].addEmojis(text)
    }

    public mutating func removeEmoji(_ emoji: Character, from id: UUID) throws {
        palettes[try existingIndex(id)].removeEmoji(emoji)
    }

    /// Moves a palette to a new position (clamped), for reordering.
    public mutating func move(id: UUID, to newIndex: Int) throws {
        let palette = palettes.remove(at: try existingIndex(id))
        palettes.insert(palette, at: min(max(newIndex, 0), palettes.count))
    }

    /// Appends imported palettes, skipping any identical (same name and emojis) to one already
    /// here, so importing the same file twice changes nothing. Imported ids that clash get new ones.
    ///
    /// - Returns: how many were added and how many skipped.
    @discardableResult
    public mutating func importPalettes(_ imported: [Palette]) throws -> (added: Int, skipped: Int) {
        var added = 0
        for var palette in imported {
            if palettes.contains(where: { $0.name == palette.name && $0.emojis == palette.emojis }) { continue }
            if self[id: palette.id] != nil { palette.id = UUID() }
            try insert(palette)
            added += 1
        }
        return (added, imported.count - added)
    }

    private func existingIndex(_ id: UUID) throws -> Int {
        guard let index = index(of: id) else {
            throw EmojiArtError(.unknownPalette, "there is no palette with id \(id).")
        }
        return index
    }
}
