/// One change to a document. Undo, redo, the edit log, live sync and the wire protocol all use
/// this type; applying one returns its inverse (see ``EmojiArtDocument/apply(_:)``).
public enum Edit: Hashable, Sendable {
    /// Replace the background (a URL, embedded image bytes, or none).
    case setBackground(Background)
    /// Add an emoji; it gets the document's next id.
    case addEmoji(text: String, position: Point, size: Int)
    /// Move emojis by an offset.
    case moveEmojis(ids: [Int], offset: Point)
    /// Scale emojis' sizes, each rounded to whole points and kept within 1...1024.
    case resizeEmojis(ids: [Int], scale: Double)
    /// Set emojis to exact sizes: what undoing a resize does, since rounding loses information.
    case setEmojiSizes([EmojiSize])
    /// Delete emojis.
    case deleteEmojis(ids: [Int])
    /// Put emojis back, each at an index in drawing order, with their ids: what undoing a
    /// delete and redoing an add do. Inserted in list order.
    case restoreEmojis([PlacedEmoji])
    /// Rename the document.
    case retitle(String)
    /// Change emojis' place in drawing order (see ``ReorderPlacement``).
    case reorder(ids: [Int], to: ReorderPlacement)
    /// Put emojis at exact drawing-order indices: what undoing a reorder does. The emojis named
    /// are taken out, then put in at their indices in increasing order of index.
    case setEmojiOrder([EmojiIndex])
    /// Turn emojis clockwise by whole degrees (any sign); each rotation is kept within 0–359.
    case rotate(ids: [Int], degrees: Int)
    /// Add emojis from a clipboard, on top in list order; they get the document's next ids.
    case paste([NewEmoji])
    /// Add a mosaic made from a picture (see the EmojiArtMosaic module): emojis like a paste's,
    /// on top in list order with the document's next ids, as one step named "Make Mosaic".
    case mosaic([NewEmoji])
    /// Copy emojis (text, size, rotation), moved by `offset`, on top in drawing order; the copies
    /// get the document's next ids, in the originals' drawing order.
    case duplicate(ids: [Int], offset: Point)
    /// Swap emojis for another emoji (one ``Emoji/validateText(_:path:)`` accepts), keeping each
    /// one's id, position, size, rotation and place in drawing order: "Replace with 🌴".
    case replaceEmoji(ids: [Int], text: String)
    /// Give emojis exact texts: what undoing a replace does, since the emojis replaced may each
    /// have been a different one.
    case setEmojiTexts([EmojiText])
    /// Lock emojis (protect them from edits that would change them) or unlock them: "Lock",
    /// "Unlock". Edits that change a locked emoji are refused (``EmojiArtError/Code/locked``).
    case setLocked(ids: [Int], locked: Bool)
    /// Make the document equal to an earlier version of itself — title, background, emojis
    /// with their ids and drawing order, and the id counter — as one change: what restoring a
    /// version does (`POST /api/documents/{id}/restore`). Its inverse is the same kind of edit
    /// holding the document as it was. Made by the server only; clients can't submit it.
    case restoreVersion(RestoredVersion)

    /// The ids of the emojis this edit names: the ones it changes, or puts back.
    public var emojiIDs: Set<Int> {
        switch self {
        case .moveEmojis(let ids, _), .resizeEmojis(let ids, _), .deleteEmojis(let ids), .reorder(let ids, _),
            .rotate(let ids, _), .duplicate(let ids, _), .replaceEmoji(let ids, _), .setLocked(let ids, _):
            Set(ids)
        case .setEmojiTexts(let texts): Set(texts.map(\.id))
        case .setEmojiSizes(let sizes): Set(sizes.map(\.id))
        case .restoreEmojis(let placed): Set(placed.map(\.emoji.id))
        case .setEmojiOrder(let indices): Set(indices.map(\.id))
        case .setBackground, .addEmoji, .retitle, .paste, .mosaic, .restoreVersion: []
        }
    }

    /// Whether this is a ``restoreVersion(_:)``, which replaces every emoji.
    public var isRestoreVersion: Bool {
        if case .restoreVersion = self { true } else { false }
    }

    /// The action name users see after "Undo"/"Redo" (PRODUCT.md §1.3).
    public var actionName: String {
        switch self {
        case .setBackground: "Set Background"
        case .addEmoji(let text, _, _): "Add \(text)"
        case .moveEmojis: "Move"
        case .resizeEmojis, .setEmojiSizes: "Resize"
        case .deleteEmojis: "Delete"
        case .restoreEmojis(let placed): placed.count == 1 ? "Add \(placed[0].emoji.text)" : "Add Emojis"
        case .retitle: "Rename"
        case .reorder(_, let placement): placement.actionName
        case .setEmojiOrder: "Arrange"
        case .rotate: "Rotate"
        case .paste: "Paste"
        case .mosaic: "Make Mosaic"
        case .duplicate: "Duplicate"
        case .replaceEmoji(_, let text): "Replace with \(text)"
        case .setEmojiTexts: "Replace"
        case .setLocked(_, let locked): locked ? "Lock" : "Unlock"
        case .restoreVersion(let restored): restored.actionName
        }
    }
}

/// An emoji id with its text, for ``Edit/setEmojiTexts(_:)``.
public struct EmojiText: Hashable, Sendable, Codable {
    public var id: Int
    public var text: String

    public init(id: Int, text: String) {
        self.id = id
        self.text = text
    }
}

/// An emoji id with a size, for ``Edit/setEmojiSizes(_:)``.
public struct EmojiSize: Hashable, Sendable, Codable {
    public var id: Int
    public var size: Int

    public init(id: Int, size: Int) {
        self.id = id
        self.size = size
    }
}

/// An emoji with the drawing-order index it goes to, for ``Edit/restoreEmojis(_:)``.
public struct PlacedEmoji: Hashable, Sendable, Codable {
    public var index: Int
    public var emoji: Emoji

    public init(index: Int, emoji: Emoji) {
        self.index = index
        self.emoji = emoji
    }
}

/// Where ``Edit/reorder(ids:to:)`` puts emojis in drawing order; the emojis moved keep their
/// order among themselves.
public enum ReorderPlacement: String, Hashable, Sendable, Codable, CaseIterable {
    /// Drawn last, over everything.
    case front
    /// Drawn first, under everything.
    case back
    /// One place later: past the next emoji not being moved.
    case forward
    /// One place earlier: before the previous emoji not being moved.
    case backward

    /// `order` (ids in drawing order) with the ids in `moving` placed as this says.
    public func arrange(_ order: [Int], moving: Set<Int>) -> [Int] {
        var order = order
        switch self {
        case .front: order = order.filter { !moving.contains($0) } + order.filter(moving.contains)
        case .back: order = order.filter(moving.contains) + order.filter { !moving.contains($0) }
        case .forward:
            // From the top down, each moved emoji below an unmoved one trades places with it:
            // a run of moved emojis rises past the one emoji above it.
            for index in stride(from: order.count - 2, through: 0, by: -1)
            where moving.contains(order[index]) && !moving.contains(order[index + 1]) {
                order.swapAt(index, index + 1)
            }
        case .backward:
            for index in stride(from: 1, to: order.count, by: 1)
            where moving.contains(order[index]) && !moving.contains(order[index - 1]) {
                order.swapAt(index, index - 1)
            }
        }
        return order
    }

    public var actionName: String {
        switch self {
        case .front: "Bring to Front"
        case .back: "Send to Back"
        case .forward: "Bring Forward"
        case .backward: "Send Backward"
        }
    }
}

/// An emoji to add, for ``Edit/paste(_:)``: everything but the id, which the document gives it.
public struct NewEmoji: Hashable, Sendable, Codable {
    public var text: String
    public var position: Point
    public var size: Int
    public var rotation: Int

    public init(text: String, position: Point, size: Int, rotation: Int = 0) {
        self.text = text
        self.position = position
        self.size = size
        self.rotation = rotation
    }

    private enum CodingKeys: String, CodingKey {
        case text, position, size, rotation
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        text = try container.decode(String.self, forKey: .text)
        position = try container.decode(Point.self, forKey: .position)
        size = try container.decode(Int.self, forKey: .size)
        rotation = try container.decodeIfPresent(Int.self, forKey: .rotation) ?? 0
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(text, forKey: .text)
        try container.encode(position, forKey: .position)
        try container.encode(size, forKey: .size)
        if rotation != 0 { try container.encode(rotation, forKey: .rotation) }
    }
}

/// An emoji id with its index in drawing order, for ``Edit/setEmojiOrder(_:)``.
public struct EmojiIndex: Hashable, Sendable, Codable {
    public var id: Int
    public var index: Int

    public init(id: Int, index: Int) {
        self.id = id
        self.index = index
    }
}

/// The document an ``Edit/restoreVersion(_:)`` puts in place, with the version it was and the
/// name its undo step shows ("Restore Version of 14:02").
public struct RestoredVersion: Hashable, Sendable {
    /// The version whose contents these are, when known (an undo's inverse doesn't say).
    public var version: Int?
    public var actionName: String
    public var document: EmojiArtDocument

    /// Longest action name accepted.
    public static let maximumActionNameLength = 120

    public init(version: Int?, actionName: String, document: EmojiArtDocument) {
        self.version = version
        self.actionName = String(actionName.prefix(RestoredVersion.maximumActionNameLength))
        self.document = document
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(version)
        hasher.combine(actionName)
        hasher.combine(document.title)
        hasher.combine(document.emojis.count)
        hasher.combine(document.nextEmojiID)
    }
}
