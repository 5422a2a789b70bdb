import Foundation

/// A named set of emojis to drag onto documents (PRODUCT.md §1.7).
public struct Palette: Hashable, Sendable, Codable, Identifiable {
    /// Stable across renames and reorders.
    public var id: UUID
    public var name: String
    /// The palette's emojis: only emoji characters, each once.
    public private(set) var emojis: String

    /// A palette; `emojis` keeps only emoji characters, each once, in order.
    public init(id: UUID = UUID(), name: String, emojis: String) {
        self.id = id
        self.name = name
        self.emojis = emojis.uniqueEmojis
    }

    private enum CodingKeys: String, CodingKey { case id, name, emojis }

    /// Decoding keeps only emoji characters, each once, as ``init(id:name:emojis:)`` does.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            id: try container.decode(UUID.self, forKey: .id), name: try container.decode(String.self, forKey: .name),
            emojis: try container.decode(String.self, forKey: .emojis))
    }

    /// Adds emojis typed or pasted by the user: only emoji characters are kept, duplicates are
    /// dropped, and the new ones go first (as in the original palette editor).
    public mutating func addEmojis(_ text: String) {
        // Filter the new text on its own first: joined to the old emojis before splitting, a
        // stray joiner or half a flag could fuse with an existing emoji.
        emojis = (text.uniqueEmojis + emojis).uniqueEmojis
    }

    /// Removes one emoji, if present.
    public mutating func removeEmoji(_ emoji: Character) {
        emojis.removeAll { $0 == emoji }
    }

    /// Palette names are 1...100 characters (grapheme clusters) without control characters…
    public static let maximumNameLength = 100
    /// …and at most 1 KiB of UTF-8, so one "character" of a thousand combining marks can't make
    /// a long name (and the API's `maxLength`, which counts code points, holds).
    public static let maximumNameBytes = 1024

    public static func validateName(_ name: String, path: String = "name") throws {
        guard !name.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw EmojiArtError(.invalidText, "a palette name can't be empty.", path: path)
        }
        guard name.count <= maximumNameLength else {
            throw EmojiArtError(
                .invalidText, "a palette name has at most \(maximumNameLength) characters.", path: path)
        }
        guard name.utf8.count <= maximumNameBytes else {
            throw EmojiArtError(
                .invalidText, "a palette name takes at most \(maximumNameBytes) bytes of UTF-8.", path: path)
        }
        guard !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw EmojiArtError(.invalidText, "a palette name can't contain control characters.", path: path)
        }
    }
}

extension Palette {
    /// The nine palettes every new library starts with, in order, with the ids the 2023 app
    /// gave them.
    public static let builtIns: [Palette] = [
        Palette(id: builtInID(1), name: "Vehicles", emojis: "🚙🚗🚘🚕🚖🏎🚚🛻🚛🚐🚓🚔🚑🚒🚀✈️🛫🛬🛩🚁🛸🚲🏍🛶⛵️🚤🛥🛳⛴🚢🚂🚝🚅🚆🚊🚉🚇🛺🚜"),
        Palette(id: builtInID(2), name: "Sports", emojis: "🏈⚾️🏀⚽️🎾🏐🥏🏓⛳️🥅🥌🏂⛷🎳"),
        Palette(id: builtInID(3), name: "Music", emojis: "🎼🎤🎹🪘🥁🎺🪗🪕🎻"),
        Palette(id: builtInID(4), name: "Animals", emojis: "🐥🐣🐂🐄🐎🐖🐏🐑🦙🐐🐓🐁🐀🐒🦆🦅🦉🦇🐢🐍🦎🦖🦕🐅🐆🦓🦍🦧🦣🐘🦛🦏🐪🐫🦒🦘🦬🐃🦙🐐🦌🐕🐩🦮🐈🦤🦢🦩🕊🦝🦨🦡🦫🦦🦥🐿🦔"),
        Palette(id: builtInID(5), name: "Animal Faces", emojis: "🐵🙈🙊🙉🐶🐱🐭🐹🐰🦊🐻🐼🐻‍❄️🐨🐯🦁🐮🐷🐸🐲"),
        Palette(id: builtInID(6), name: "Flora", emojis: "🌲🌴🌿☘️🍀🍁🍄🌾💐🌷🌹🥀🌺🌸🌼🌻"),
        Palette(id: builtInID(7), name: "Weather", emojis: "☀️🌤⛅️🌥☁️🌦🌧⛈🌩🌨❄️💨☔️💧💦🌊☂️🌫🌪"),
        Palette(id: builtInID(8), name: "COVID", emojis: "💉🦠😷🤧🤒"),
        Palette(
            id: builtInID(9), name: "Faces",
            emojis: "😀😃😄😁😆😅😂🤣🥲☺️😊😇🙂🙃😉😌😍🥰😘😗😙😚😋😛😝😜🤪🤨🧐🤓😎🥸🤩🥳😏😞😔😟😕🙁☹️😣😖😫😩🥺😢😭😤😠😡🤯😳🥶😥😓🤗🤔🤭🤫🤥😬🙄😯😧🥱😴🤮😷🤧🤒🤠"),
    ]

    private static func builtInID(_ number: Int) -> UUID {
        // The literal is well formed for every number below 10^12.
        UUID(uuidString: String(format: "00000000-0000-0000-0000-%012d", number))!
    }
}
