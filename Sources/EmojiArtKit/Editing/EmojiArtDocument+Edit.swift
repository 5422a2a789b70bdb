extension EmojiArtDocument {
    /// Applies an edit whole, or throws and leaves the document untouched.
    ///
    /// Everything is checked before anything changes.
    ///
    /// ```swift
    /// let inverse = try document.apply(.moveEmojis(ids: [1], offset: Point(x: 10, y: 0)))
    /// try document.apply(inverse)  // back where it was
    /// ```
    /// - Returns: the edit that undoes this one.
    @discardableResult
    public mutating func apply(_ edit: Edit) throws -> Edit {
        switch edit {
        case .setBackground(let background):
            try background.validate()
            let old = self.background
            setBackground(background)
            return .setBackground(old)

        case .addEmoji(let text, let position, let size):
            try Emoji.validateText(text, path: "text")
            try Emoji.validatePosition(position, path: "position")
            try Emoji.validateSize(size, path: "size")
            try checkRoomFor(1)
            guard DocumentLimits.idRange.contains(nextEmojiID) else {
                throw EmojiArtError(.outOfRange, "the document has run out of emoji ids.", path: "id")
            }
            let id = nextEmojiID
            emojis.append(Emoji(id: id, text: text, position: position, size: size))
            nextEmojiID += 1
            return .deleteEmojis(ids: [id])

        case .moveEmojis(let ids, let offset):
            try checkExisting(ids, changing: true)
            // Offsets beyond twice the canvas can't land anywhere valid; checking them first
            // also keeps the additions below from overflowing.
            let span = 2 * DocumentLimits.coordinateRange.upperBound
            guard (-span...span).contains(offset.x), (-span...span).contains(offset.y) else {
                throw EmojiArtError(.outOfRange, "offset \(offset) is larger than the canvas.", path: "offset")
            }
            let range = DocumentLimits.coordinateRange
            for id in ids {
                let position = emojis[id: id]!.position
                let moved = Point(x: position.x + offset.x, y: position.y + offset.y)
                if !range.contains(moved.x) || !range.contains(moved.y) {
                    try Emoji.validatePosition(moved, path: "emoji \(id)")
                }
            }
            for id in ids {
                emojis.update(id: id) {
                    $0.position.x += offset.x
                    $0.position.y += offset.y
                }
            }
            return .moveEmojis(ids: ids, offset: Point(x: -offset.x, y: -offset.y))

        case .resizeEmojis(let ids, let scale):
            guard scale.isFinite, DocumentLimits.scaleRange.contains(scale) else {
                throw EmojiArtError(.outOfRange, "scale \(scale) is outside 1/1024...1024.", path: "scale")
            }
            try checkExisting(ids, changing: true)
            let range = DocumentLimits.sizeRange
            let sizes = ids.map { id in
                let scaled = (Double(emojis[id: id]!.size) * scale).rounded()
                return EmojiSize(
                    id: id, size: Int(min(max(scaled, Double(range.lowerBound)), Double(range.upperBound))))
            }
            return setSizes(sizes)

        case .setEmojiSizes(let sizes):
            try checkExisting(sizes.map(\.id), changing: true)
            for size in sizes where !DocumentLimits.sizeRange.contains(size.size) {
                try Emoji.validateSize(size.size, path: "emoji \(size.id).size")
            }
            return setSizes(sizes)

        case .deleteEmojis(let ids):
            try checkExisting(ids, changing: true)
            var removed: [PlacedEmoji] = []
            removed.reserveCapacity(ids.count)
            for id in ids {
                if let (emoji, index) = emojis.remove(id: id) {
                    removed.append(PlacedEmoji(index: index, emoji: emoji))
                }
            }
            return .restoreEmojis(removed.reversed())

        case .restoreEmojis(let placed):
            guard !placed.isEmpty else {
                throw EmojiArtError(.unknownEmoji, "the edit names no emojis.", path: "emojis")
            }
            try checkRoomFor(placed.count)
            var newIDs = Set<Int>()
            for (offset, item) in placed.enumerated() {
                let path = "emojis[\(offset)]"
                try item.emoji.validate(path: path + ".emoji")
                guard !emojis.contains(id: item.emoji.id), newIDs.insert(item.emoji.id).inserted else {
                    throw EmojiArtError(
                        .outOfRange, "id \(item.emoji.id) is already in use.", path: path + ".emoji.id")
                }
                guard (0...(emojis.count + offset)).contains(item.index) else {
                    throw EmojiArtError(
                        .outOfRange, "index \(item.index) is past the end of the emojis.", path: path + ".index")
                }
            }
            for item in placed {
                emojis.insert(item.emoji, at: item.index)
                nextEmojiID = max(nextEmojiID, item.emoji.id + 1)
            }
            return .deleteEmojis(ids: placed.reversed().map(\.emoji.id))

        case .retitle(let title):
            try EmojiArtDocument.validateTitle(title)
            let old = self.title
            setTitle(title)
            return .retitle(old)

        case .reorder(let ids, let placement):
            try checkExisting(ids, changing: true)
            let moving = Set(ids)
            var places: [EmojiIndex] = []
            places.reserveCapacity(ids.count)
            for (index, id) in placement.arrange(emojis.ids, moving: moving).enumerated() where moving.contains(id) {
                places.append(EmojiIndex(id: id, index: index))
            }
            return .setEmojiOrder(emojis.place(places))

        case .setEmojiOrder(let places):
            try checkExisting(places.map(\.id), changing: true)
            var taken = Set<Int>()
            for place in places {
                guard (0..<emojis.count).contains(place.index), taken.insert(place.index).inserted else {
                    throw EmojiArtError(
                        .outOfRange, "index \(place.index) is not a free place in the drawing order.",
                        path: "order")
                }
            }
            return .setEmojiOrder(emojis.place(places))

        case .rotate(let ids, let degrees):
            try checkExisting(ids, changing: true)
            guard (-360 * 1024...360 * 1024).contains(degrees) else {
                throw EmojiArtError(.outOfRange, "degrees \(degrees) is not a turn of the canvas.", path: "degrees")
            }
            for id in ids {
                emojis.update(id: id) { $0.rotation = Emoji.normalizedRotation($0.rotation + degrees) }
            }
            return .rotate(ids: ids, degrees: -degrees)

        case .paste(let new), .mosaic(let new):
            guard !new.isEmpty else {
                throw EmojiArtError(.unknownEmoji, "the edit names no emojis.", path: "emojis")
            }
            for (index, emoji) in new.enumerated() {
                let path = "emojis[\(index)]"
                try Emoji.validateText(emoji.text, path: path + ".text")
                try Emoji.validatePosition(emoji.position, path: path + ".position")
                try Emoji.validateSize(emoji.size, path: path + ".size")
                try Emoji.validateRotation(emoji.rotation, path: path + ".rotation")
            }
            return try add(new)

        case .duplicate(let ids, let offset):
            try checkExisting(ids)
            let span = 2 * DocumentLimits.coordinateRange.upperBound
            guard (-span...span).contains(offset.x), (-span...span).contains(offset.y) else {
                throw EmojiArtError(.outOfRange, "offset \(offset) is larger than the canvas.", path: "offset")
            }
            let chosen = Set(ids)
            var copies: [NewEmoji] = []
            copies.reserveCapacity(ids.count)
            // Copies of locked emojis are not locked: a copy is a new emoji to arrange.
            for emoji in emojis where chosen.contains(emoji.id) {
                let position = Point(x: emoji.position.x + offset.x, y: emoji.position.y + offset.y)
                try Emoji.validatePosition(position, path: "offset")
                copies.append(
                    NewEmoji(text: emoji.text, position: position, size: emoji.size, rotation: emoji.rotation))
            }
            return try add(copies)

        case .replaceEmoji(let ids, let text):
            try checkExisting(ids, changing: true)
            try Emoji.validateText(text, path: "text")
            return setTexts(ids.map { EmojiText(id: $0, text: text) })

        case .setEmojiTexts(let texts):
            try checkExisting(texts.map(\.id), changing: true)
            for (index, text) in texts.enumerated() {
                try Emoji.validateText(text.text, path: "texts[\(index)].text")
            }
            return setTexts(texts)

        case .setLocked(let ids, let locked):
            try checkExisting(ids)
            // Undoing puts back only what changed: locking a selection with some emojis already
            // locked, then undoing, leaves those locked.
            let changed = ids.filter { emojis[id: $0]!.locked != locked }
            for id in changed { emojis.update(id: id) { $0.locked = locked } }
            return changed.isEmpty ? .setLocked(ids: ids, locked: locked) : .setLocked(ids: changed, locked: !locked)

        case .restoreVersion(let restored):
            // The document was checked when it was made (from a stored version, or read by
            // the wire's parser, which validates as a file's reader does).
            let old = RestoredVersion(version: nil, actionName: restored.actionName, document: self)
            self = restored.document
            return .restoreVersion(old)
        }
    }

    /// Adds checked emojis on top with the next ids; returns the edit that deletes them.
    private mutating func add(_ new: [NewEmoji]) throws -> Edit {
        try checkRoomFor(new.count)
        guard DocumentLimits.idRange.contains(nextEmojiID + new.count - 1) else {
            throw EmojiArtError(.outOfRange, "the document has run out of emoji ids.", path: "id")
        }
        var ids: [Int] = []
        ids.reserveCapacity(new.count)
        for emoji in new {
            emojis.append(
                Emoji(
                    id: nextEmojiID, text: emoji.text, position: emoji.position, size: emoji.size,
                    rotation: emoji.rotation))
            ids.append(nextEmojiID)
            nextEmojiID += 1
        }
        return .deleteEmojis(ids: ids)
    }

    private mutating func setSizes(_ sizes: [EmojiSize]) -> Edit {
        var old: [EmojiSize] = []
        old.reserveCapacity(sizes.count)
        for size in sizes {
            old.append(EmojiSize(id: size.id, size: emojis[id: size.id]!.size))
            emojis.update(id: size.id) { $0.size = size.size }
        }
        return .setEmojiSizes(old)
    }

    private mutating func setTexts(_ texts: [EmojiText]) -> Edit {
        var old: [EmojiText] = []
        old.reserveCapacity(texts.count)
        for text in texts {
            old.append(EmojiText(id: text.id, text: emojis[id: text.id]!.text))
            emojis.update(id: text.id) { $0.text = text.text }
        }
        return .setEmojiTexts(old)
    }

    /// Throws unless `ids` is non-empty, has no repeats, and every id exists — and, for an edit
    /// `changing` them, none is locked.
    private func checkExisting(_ ids: [Int], changing: Bool = false) throws {
        guard !ids.isEmpty else {
            throw EmojiArtError(.unknownEmoji, "the edit names no emojis.", path: "ids")
        }
        for id in ids {
            guard let emoji = emojis[id: id] else {
                throw EmojiArtError(
                    .unknownEmoji, "there is no emoji with id \(id); it may have been deleted.", path: "ids")
            }
            if changing, emoji.locked {
                throw EmojiArtError(.locked, "emoji \(id) (\(emoji.text)) is locked; unlock it first.", path: "ids")
            }
        }
        // Most edits name one emoji (a drag); only build a set when repeats are possible.
        if ids.count > 1 {
            var seen = Set<Int>(minimumCapacity: ids.count)
            for id in ids where !seen.insert(id).inserted {
                throw EmojiArtError(.outOfRange, "id \(id) is named twice.", path: "ids")
            }
        }
    }

    private func checkRoomFor(_ count: Int) throws {
        guard emojis.count + count <= DocumentLimits.maximumEmojiCount else {
            throw EmojiArtError(
                .tooLarge, "a document holds at most \(DocumentLimits.maximumEmojiCount) emojis.", path: "emojis")
        }
    }
}
