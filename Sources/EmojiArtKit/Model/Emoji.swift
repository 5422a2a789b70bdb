/// A point or offset in document coordinates: integer points, origin at the canvas centre,
/// **y pointing up**.
public struct Point: Hashable, Sendable, Codable, CustomStringConvertible {
    public var x: Int
    public var y: Int

    public init(x: Int, y: Int) {
        self.x = x
        self.y = y
    }

    public static let zero = Point(x: 0, y: 0)

    public var description: String { "(\(x), \(y))" }
}

/// One emoji placed on the canvas.
public struct Emoji: Hashable, Sendable, Codable, Identifiable {
    /// Unique within its document and never reused.
    public var id: Int
    /// Exactly one emoji grapheme (see ``Swift/Character/isEmoji``).
    public var text: String
    /// Where its centre is, y up.
    public var position: Point
    /// The font size it is drawn at, in points.
    public var size: Int
    /// How far it is turned clockwise about its centre, in whole degrees 0–359 (0: upright).
    public var rotation: Int
    /// Protected from stray clicks: edits that change it are refused until it is unlocked
    /// (``Edit/setLocked(ids:locked:)``).
    public var locked: Bool

    public init(id: Int, text: String, position: Point, size: Int, rotation: Int = 0, locked: Bool = false) {
        self.id = id
        self.text = text
        self.position = position
        self.size = size
        self.rotation = rotation
        self.locked = locked
    }

    private enum CodingKeys: String, CodingKey {
        case id, text, position, size, rotation, locked
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(Int.self, forKey: .id)
        text = try container.decode(String.self, forKey: .text)
        position = try container.decode(Point.self, forKey: .position)
        size = try container.decode(Int.self, forKey: .size)
        rotation = try container.decodeIfPresent(Int.self, forKey: .rotation) ?? 0
        locked = try container.decodeIfPresent(Bool.self, forKey: .locked) ?? false
    }

    /// Rotation is written only when the emoji is turned, and `locked` only when it is locked, as
    /// in every other form of an emoji.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(text, forKey: .text)
        try container.encode(position, forKey: .position)
        try container.encode(size, forKey: .size)
        if rotation != 0 { try container.encode(rotation, forKey: .rotation) }
        if locked { try container.encode(true, forKey: .locked) }
    }
}

extension Emoji {
    /// `degrees` (any whole number) as a rotation in 0–359.
    public static func normalizedRotation(_ degrees: Int) -> Int {
        let turned = degrees % 360
        return turned < 0 ? turned + 360 : turned
    }
}

extension Emoji {
    /// Throws unless every field is within ``DocumentLimits``; `path` names the emoji in errors.
    public func validate(path: String = "emoji") throws {
        try Emoji.validateText(text, path: path + ".text")
        try Emoji.validatePosition(position, path: path + ".position")
        try Emoji.validateSize(size, path: path + ".size")
        try Emoji.validateRotation(rotation, path: path + ".rotation")
        guard DocumentLimits.idRange.contains(id) else {
            throw EmojiArtError(
                .outOfRange, "id \(id) is outside \(DocumentLimits.idRange).", path: path + ".id")
        }
    }

    public static func validateText(_ text: String, path: String) throws {
        guard text.count == 1, let character = text.first, character.isEmoji else {
            let shown = text.unicodeScalars.count > 20 ? "text" : "\"\(text.debugDescriptionBody)\""
            throw EmojiArtError(
                .invalidEmoji,
                "\(shown) is not a single emoji; use exactly one emoji such as 😀, 👍🏽 or 🇫🇷.",
                path: path)
        }
    }

    static func validatePosition(_ position: Point, path: String) throws {
        let range = DocumentLimits.coordinateRange
        guard range.contains(position.x), range.contains(position.y) else {
            throw EmojiArtError(
                .outOfRange,
                "position \(position) is outside the canvas; coordinates are within ±\(range.upperBound).",
                path: path)
        }
    }

    static func validateRotation(_ rotation: Int, path: String) throws {
        guard (0..<360).contains(rotation) else {
            throw EmojiArtError(
                .outOfRange, "rotation \(rotation) is outside 0...359 degrees.", path: path)
        }
    }

    static func validateSize(_ size: Int, path: String) throws {
        guard DocumentLimits.sizeRange.contains(size) else {
            throw EmojiArtError(
                .outOfRange,
                "size \(size) is outside \(DocumentLimits.sizeRange.lowerBound)...\(DocumentLimits.sizeRange.upperBound) points.",
                path: path)
        }
    }
}

extension String {
    /// The string as it would appear inside a Swift string literal, without the quotes,
    /// so invisible characters show in error messages.
    var debugDescriptionBody: String { String(debugDescription.dropFirst().dropLast()) }
}
