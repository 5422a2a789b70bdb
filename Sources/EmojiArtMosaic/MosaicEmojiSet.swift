import EmojiArtKit

/// The emojis a mosaic is made of: "all" (the catalogue's emojis that read as pictures), or the
/// emojis a user names.
public enum MosaicEmojiSet {
    /// Subgroups of the catalogue left out of "all": flags, keycaps, and symbols that are text
    /// more than picture (letters, arrows, punctuation, maths, currency, media controls, gender
    /// signs, ™ and ©). Skin-tone variants are left out too (only the default yellow is in).
    public static let excludedSubgroups: Set<String> = [
        "flag", "country-flag", "subdivision-flag", "keycap", "alphanum", "arrow", "punctuation", "math",
        "currency", "av-symbol", "other-symbol", "gender",
    ]

    /// The emojis of "all", in catalogue order.
    public static func all(in catalogue: EmojiCatalogue) -> [String] {
        catalogue.entries.compactMap { entry in
            let group = catalogue.groups[entry.group]
            guard group != EmojiCatalogue.componentGroup, group != "Flags",
                !excludedSubgroups.contains(entry.subgroup)
            else { return nil }
            return entry.emoji
        }
    }

    /// The longest emoji set a user may type, in bytes.
    public static let maximumTextBytes = 8 * 1024

    /// The distinct emojis in `text`, in order; spaces and commas between them are ignored.
    ///
    /// - Throws: `invalid_emoji` naming the first character that is neither, or if there is no emoji.
    public static func parse(_ text: String, path: String = "emojis") throws -> [String] {
        guard text.utf8.count <= maximumTextBytes else {
            throw EmojiArtError(.tooLarge, "an emoji set is at most \(maximumTextBytes) bytes.", path: path)
        }
        var seen = Set<String>()
        var result: [String] = []
        for character in text {
            if character.isWhitespace || character == "," { continue }
            let emoji = String(character)
            do {
                try Emoji.validateText(emoji, path: path)
            } catch {
                throw EmojiArtError(
                    .invalidEmoji, "\"\(emoji.prefix(8))\" in the emoji set is not an emoji.", path: path)
            }
            if seen.insert(emoji).inserted { result.append(emoji) }
        }
        guard !result.isEmpty else {
            throw EmojiArtError(.invalidEmoji, "the mosaic's emoji set has no emoji in it.", path: path)
        }
        return result
    }
}
