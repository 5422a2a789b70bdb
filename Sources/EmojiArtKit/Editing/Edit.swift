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
        }
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
