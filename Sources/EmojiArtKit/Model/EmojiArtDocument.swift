/// An EmojiArt document: a title, an optional background centred at the origin, and emojis.
///
/// The document is a value. It changes only through ``apply(_:)``, which validates an ``Edit``
/// and returns its inverse, so every change can be undone, logged and sent over the wire.
public struct EmojiArtDocument: Equatable, Sendable {
    public static let defaultTitle = "Untitled"

    public private(set) var title: String
    public private(set) var background: Background
    public internal(set) var emojis: EmojiCollection
    /// The id the next added emoji gets. It only grows — not even undo lowers it, so an id is
    /// never reused — except that restoring an earlier version (``Edit/restoreVersion(_:)``)
    /// puts back that version's counter, freeing ids used only after it.
    public internal(set) var nextEmojiID: Int

    /// An empty document.
    public init(title: String = EmojiArtDocument.defaultTitle) throws {
        try EmojiArtDocument.validateTitle(title)
        self.title = title
        self.background = .none
        self.emojis = EmojiCollection()
        self.nextEmojiID = 1
    }

    /// A document with contents, validated against ``DocumentLimits``.
    ///
    /// - Parameters:
    ///   - nextEmojiID: at least one more than the largest id; raised to that if lower.
    ///   - path: prefixes error paths, e.g. the reader passes `""` so errors read `emojis[3].size`.
    public init(
        title: String = EmojiArtDocument.defaultTitle, background: Background = .none, emojis: [Emoji],
        nextEmojiID: Int = 1, path: String = ""
    ) throws {
        try self.init(
            title: title, background: background, emojis: emojis, nextEmojiID: nextEmojiID, path: path,
            fieldNames: .model)
    }

    /// - Parameters:
    ///   - fieldNames: how the source names emoji fields, so errors name the file's keys.
    ///   - textsChecked: every emoji's text is already known to be one emoji (a reader that
    ///     checked each distinct text as it read it).
    init(
        title: String, background: Background, emojis: [Emoji], nextEmojiID: Int, path: String,
        fieldNames: EmojiFieldNames, textsChecked: Bool = false
    ) throws {
        try EmojiArtDocument.validateTitle(title, path: EmojiArtDocument.join(path, "title"))
        try background.validate(path: EmojiArtDocument.join(path, "background"))
        guard emojis.count <= DocumentLimits.maximumEmojiCount else {
            throw EmojiArtError(
                .tooLarge,
                "the document has \(emojis.count) emojis; the limit is \(DocumentLimits.maximumEmojiCount).",
                path: EmojiArtDocument.join(path, "emojis"))
        }
        var collection = EmojiCollection()
        collection.reserveCapacity(emojis.count)
        // Documents reuse a few emojis many times; check each distinct text once.
        var checkedTexts = Set<String>()
        for (index, emoji) in emojis.enumerated() {
            func emojiPath() -> String { EmojiArtDocument.join(path, "emojis[\(index)]") }
            if !textsChecked, !checkedTexts.contains(emoji.text) {
                try Emoji.validateText(emoji.text, path: emojiPath() + "." + fieldNames.text)
                checkedTexts.insert(emoji.text)
            }
            if !DocumentLimits.coordinateRange.contains(emoji.position.x)
                || !DocumentLimits.coordinateRange.contains(emoji.position.y)
            {
                try Emoji.validatePosition(
                    emoji.position, path: emojiPath() + (fieldNames.position.map { "." + $0 } ?? ""))
            }
            if !DocumentLimits.sizeRange.contains(emoji.size) {
                try Emoji.validateSize(emoji.size, path: emojiPath() + ".size")
            }
            if emoji.rotation != 0 { try Emoji.validateRotation(emoji.rotation, path: emojiPath() + ".rotation") }
            guard DocumentLimits.idRange.contains(emoji.id) else {
                throw EmojiArtError(
                    .outOfRange, "id \(emoji.id) is outside \(DocumentLimits.idRange).", path: emojiPath() + ".id")
            }
            guard collection.append(emoji) else {
                throw EmojiArtError(
                    .invalidFile, "id \(emoji.id) is used by two emojis; ids must be unique.",
                    path: emojiPath() + ".id")
            }
        }
        // The counter may sit one past the last id: every id has then been handed out.
        guard (DocumentLimits.idRange.lowerBound...DocumentLimits.idRange.upperBound + 1).contains(nextEmojiID) else {
            throw EmojiArtError(
                .outOfRange, "the emoji id counter \(nextEmojiID) is outside \(DocumentLimits.idRange).",
                path: EmojiArtDocument.join(path, "uniqueEmojiId"))
        }
        self.title = title
        self.background = background
        self.emojis = collection
        self.nextEmojiID = max(nextEmojiID, (emojis.lazy.map(\.id).max() ?? 0) + 1)
    }

    /// A valid title made from a file's name (without its extension): control characters
    /// removed, spaces trimmed, cut to a title's limits (200 characters, 1 KiB), or "Untitled"
    /// if nothing is left.
    ///
    /// ```swift
    /// EmojiArtDocument.title(fromFileName: "party\t2021")  // "party2021"
    /// ```
    public static func title(fromFileName name: String) -> String {
        let scalars = name.unicodeScalars.filter { $0.properties.generalCategory != .control }
        let cleaned = String(String.UnicodeScalarView(scalars)).trimmingCharacters(in: .whitespaces)
        guard !cleaned.isEmpty else { return defaultTitle }
        return DocumentLimits.clampedTitle(cleaned)
    }

    static func validateTitle(_ title: String, path: String = "title") throws {
        guard !title.isEmpty else {
            throw EmojiArtError(.invalidText, "a title can't be empty.", path: path)
        }
        guard title.count <= DocumentLimits.maximumTitleLength else {
            throw EmojiArtError(
                .invalidText,
                "the title has \(title.count) characters; the limit is \(DocumentLimits.maximumTitleLength).",
                path: path)
        }
        guard title.utf8.count <= DocumentLimits.maximumTitleBytes else {
            throw EmojiArtError(
                .invalidText,
                "the title takes \(title.utf8.count) bytes; the limit is \(DocumentLimits.maximumTitleBytes) (UTF-8).",
                path: path)
        }
        guard !title.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw EmojiArtError(
                .invalidText, "a title can't contain control characters such as line breaks or tabs.",
                path: path)
        }
    }

    static func join(_ prefix: String, _ field: String) -> String {
        prefix.isEmpty ? field : prefix + "." + field
    }

    mutating func setTitle(_ title: String) { self.title = title }
    mutating func setBackground(_ background: Background) { self.background = background }
}

extension EmojiArtDocument {
    /// The box around every emoji's glyph square (size × size centred at its position),
    /// or nil for a document without emojis. y up: `minY` is the bottom edge.
    public var emojiBounds: Bounds? {
        guard !emojis.isEmpty else { return nil }
        var bounds = Bounds(minX: .max, minY: .max, maxX: .min, maxY: .min)
        for emoji in emojis {
            let half = emoji.size / 2
            bounds.minX = min(bounds.minX, emoji.position.x - half)
            bounds.maxX = max(bounds.maxX, emoji.position.x + (emoji.size - half))
            bounds.minY = min(bounds.minY, emoji.position.y - half)
            bounds.maxY = max(bounds.maxY, emoji.position.y + (emoji.size - half))
        }
        return bounds
    }
}

/// An axis-aligned box in document coordinates (y up).
public struct Bounds: Hashable, Sendable, Codable {
    public var minX: Int
    public var minY: Int
    public var maxX: Int
    public var maxY: Int

    public init(minX: Int, minY: Int, maxX: Int, maxY: Int) {
        self.minX = minX
        self.minY = minY
        self.maxX = maxX
        self.maxY = maxY
    }

    public var width: Int { maxX - minX }
    public var height: Int { maxY - minY }
}

/// What a source calls an emoji's fields, so validation errors name the keys of the file.
struct EmojiFieldNames {
    var text: String
    /// nil when x and y sit directly in the emoji (the 2021 format).
    var position: String?

    static let model = EmojiFieldNames(text: "text", position: "position")
    static let cs193p2023 = EmojiFieldNames(text: "string", position: "position")
    static let cs193p2021 = EmojiFieldNames(text: "text", position: nil)
}
