/// What one version changed in a document, as every other window needs it to catch up: the
/// emojis removed, the emojis inserted (with their place in drawing order; an emoji that only
/// changed place is removed and inserted), the emojis that only moved (their ids and the offset,
/// in groups), the emojis whose size, rotation, text or lock changed (their whole state), and a new title or
/// background.
///
/// Moving 10,000 emojis is one group — `{"idRanges": [[1, 10000]], "offset": …}` on the wire —
/// not 10,000 emoji states.
///
/// Windows apply patches instead of replaying edits, so the server stays the only place edits
/// are interpreted (an emoji's id, a resize's rounding): a window only removes, inserts and
/// replaces what it is told. Applying a version's patch to the document at the version before
/// gives exactly the document at that version.
public struct DocumentPatch: Equatable, Sendable {
    /// The new title, if the version renamed the document.
    public var title: String?
    /// The new background, if the version set one (`.some(.none)`: the background was removed).
    public var background: Background?
    /// Emojis taken out, by id (applied first; ids a window doesn't have are ignored).
    public var removedIDs: [Int]
    /// Emojis put in, in increasing order of their index in drawing order (applied second).
    public var inserted: [PlacedEmoji]
    /// Emojis that stayed but changed size, rotation, text or lock (and perhaps moved too), as they are now
    /// (applied third).
    public var updated: [Emoji]
    /// Emojis that stayed and only moved, by an offset per group (applied last).
    public var moved: [MovedEmojis]
    /// The document's id counter afterwards.
    public var nextEmojiID: Int

    public init(
        title: String? = nil, background: Background? = nil, removedIDs: [Int] = [], inserted: [PlacedEmoji] = [],
        updated: [Emoji] = [], moved: [MovedEmojis] = [], nextEmojiID: Int
    ) {
        self.title = title
        self.background = background
        self.removedIDs = removedIDs
        self.inserted = inserted
        self.updated = updated
        self.moved = moved
        self.nextEmojiID = nextEmojiID
    }

    /// The patch for `edits`, applied as one version to a document whose id counter was
    /// `firstNewID`, giving `after`. Costs O(edited emojis), plus one pass over the drawing
    /// order when emojis were inserted.
    ///
    /// - Parameter idsBefore: the emojis' ids before the edits, needed only when one of them
    ///   is a ``Edit/restoreVersion(_:)`` (see ``needsIDsBefore(_:)``): every one is removed
    ///   and the restored emojis inserted.
    public init(edits: [Edit], firstNewID: Int, after: EmojiArtDocument, idsBefore: [Int]? = nil) {
        if edits.contains(where: \.isRestoreVersion) {
            self.init(
                title: after.title, background: after.background, removedIDs: idsBefore ?? [],
                inserted: after.emojis.enumerated().map { PlacedEmoji(index: $0.offset, emoji: $0.element) },
                nextEmojiID: after.nextEmojiID)
            return
        }
        var removed: [Int] = []
        var structural = Set<Int>()  // ids deleted, added or restored
        var changed: [Int] = []  // resized or turned: sent whole
        var offsets: [Int: Point] = [:]  // moved: the offset so far
        var movedOrder: [Int] = []
        for edit in edits {
            switch edit {
            case .setBackground, .retitle:
                break
            case .addEmoji, .paste, .mosaic, .duplicate:
                break  // their ids are in firstNewID..<after.nextEmojiID, below
            case .moveEmojis(let ids, let offset):
                for id in ids {
                    if let sum = offsets[id] {
                        offsets[id] = Point(x: sum.x + offset.x, y: sum.y + offset.y)
                    } else {
                        offsets[id] = offset
                        movedOrder.append(id)
                    }
                }
            case .resizeEmojis(let ids, _), .rotate(let ids, _), .replaceEmoji(let ids, _), .setLocked(let ids, _):
                changed += ids
            case .setEmojiTexts(let texts):
                changed += texts.map(\.id)
            case .reorder(let ids, _):
                // A new place in drawing order: taken out and put back in where they are now.
                removed += ids.filter { !structural.contains($0) || !removed.contains($0) }
                structural.formUnion(ids)
            case .setEmojiOrder(let places):
                let ids = places.map(\.id)
                removed += ids.filter { !structural.contains($0) || !removed.contains($0) }
                structural.formUnion(ids)
            case .setEmojiSizes(let sizes):
                changed += sizes.map(\.id)
            case .deleteEmojis(let ids):
                removed += ids.filter { !structural.contains($0) || !removed.contains($0) }
                structural.formUnion(ids)
            case .restoreEmojis(let placed):
                // Restored after a delete in the same version: removed (above), then inserted.
                structural.formUnion(placed.map(\.emoji.id))
            case .restoreVersion:
                break  // handled whole, above
            }
        }
        let newIDs = firstNewID..<max(firstNewID, after.nextEmojiID)
        if newIDs.count <= 4_096 {
            structural.formUnion(newIDs)
        } else {  // the counter jumped (an emoji restored with a high id): look at what is there
            structural.formUnion(after.emojis.ids.filter { newIDs.contains($0) })
        }
        var inserted: [PlacedEmoji] = []
        let present = structural.filter { after.emojis.contains(id: $0) }
        if !present.isEmpty {
            for (index, id) in after.emojis.ids.enumerated() where present.contains(id) {
                inserted.append(PlacedEmoji(index: index, emoji: after.emojis[id: id]!))
            }
        }
        var seen = Set<Int>()
        let updated = changed.filter { !structural.contains($0) && seen.insert($0).inserted }
            .compactMap { after.emojis[id: $0] }
        // Moved only: grouped by offset, each group's ids ascending (so they run together).
        var groups: [Point: [Int]] = [:]
        for id in movedOrder where !structural.contains(id) && !seen.contains(id) && after.emojis.contains(id: id) {
            let offset = offsets[id]!
            if offset != .zero { groups[offset, default: []].append(id) }
        }
        let moved = groups.map { MovedEmojis(ids: $0.value.sorted(), offset: $0.key) }
            .sorted { $0.ids[0] < $1.ids[0] }
        var title: String?
        var background: Background?
        for edit in edits {
            if case .retitle = edit { title = after.title }
            if case .setBackground = edit { background = after.background }
        }
        self.init(
            title: title, background: background, removedIDs: removed, inserted: inserted, updated: updated,
            moved: moved, nextEmojiID: after.nextEmojiID)
    }

    /// Whether making the patch for `edits` needs the ids before them.
    public static func needsIDsBefore(_ edits: [Edit]?) -> Bool {
        edits?.contains(where: \.isRestoreVersion) ?? false
    }

    /// Whether the patch changes nothing.
    public var isEmpty: Bool {
        title == nil && background == nil && removedIDs.isEmpty && inserted.isEmpty && updated.isEmpty
            && moved.isEmpty
    }

    /// Applies the patch. Throws, changing nothing, if it does not fit the document (an inserted
    /// id already there, an index past the end, an updated emoji missing): the window has
    /// diverged and must take a snapshot.
    public func apply(to document: inout EmojiArtDocument) throws {
        var result = document
        for id in removedIDs { _ = result.emojis.remove(id: id) }
        for placed in inserted {
            guard !result.emojis.contains(id: placed.emoji.id), (0...result.emojis.count).contains(placed.index)
            else {
                throw EmojiArtError(.outOfRange, "the change does not fit this copy of the document.")
            }
            result.emojis.insert(placed.emoji, at: placed.index)
        }
        for emoji in updated {
            guard result.emojis.contains(id: emoji.id) else {
                throw EmojiArtError(.unknownEmoji, "the change names emoji \(emoji.id), which this copy lacks.")
            }
            result.emojis.update(id: emoji.id) { $0 = emoji }
        }
        for group in moved {
            for id in group.ids {
                guard result.emojis.contains(id: id) else {
                    throw EmojiArtError(.unknownEmoji, "the change moves emoji \(id), which this copy lacks.")
                }
                result.emojis.update(id: id) {
                    $0.position = Point(x: $0.position.x + group.offset.x, y: $0.position.y + group.offset.y)
                }
            }
        }
        if let title { result.setTitle(title) }
        if let background { result.setBackground(background) }
        result.nextEmojiID = nextEmojiID
        document = result
    }
}

/// Emojis that moved by one offset, for ``DocumentPatch/moved``: ids ascending.
public struct MovedEmojis: Hashable, Sendable {
    public var ids: [Int]
    public var offset: Point

    public init(ids: [Int], offset: Point) {
        self.ids = ids
        self.offset = offset
    }
}
