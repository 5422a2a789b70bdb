import Foundation

/// The common native file read straight from its bytes, without building a JSON tree: what the
/// server does every time it opens a document, so it is worth a reader of its own.
///
/// It takes only what ``EmojiArtFile/write(_:as:implicitTitle:)`` writes — the marker, the
/// version, a title, a background string, emojis with `string`, `position`, `size`, `rotation`
/// and `id` in any order, and `uniqueEmojiId`, with any whitespace — and gives up (nil) at the
/// first thing it doesn't expect: an escape in a string, a number that isn't a plain integer,
/// a key it doesn't know, a text that isn't one emoji. The general reader then reads the file
/// and, if it is wrong, says where. So for every input this reader either gives nil or exactly
/// the document the general reader gives (`ReaderPropertyTests` checks both ways).
///
/// Each distinct emoji text is made into a `String` and validated once: files repeat a few
/// emojis many times, and building and checking a grapheme is the costly part of an emoji.
struct NativeFastReader {
    private let bytes: UnsafeBufferPointer<UInt8>
    private var index = 0
    /// Texts seen so far, by a hash of their bytes: where their bytes are, and the string.
    private var texts: [UInt64: (start: Int, count: Int, text: String)] = [:]

    private init(bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    /// The document, or nil if the file is not the plain native form (or is invalid).
    ///
    /// - Parameter defaultTitle: the title when the file has none.
    static func read(_ bytes: [UInt8], defaultTitle: String) -> EmojiArtDocument? {
        bytes.withUnsafeBufferPointer { buffer in
            var reader = NativeFastReader(bytes: buffer)
            return reader.document(defaultTitle: defaultTitle)
        }
    }

    private mutating func document(defaultTitle: String) -> EmojiArtDocument? {
        skipWhitespace()
        guard take(UInt8(ascii: "{")) else { return nil }
        var seen = Set<Key>()
        var title = defaultTitle
        var background = Background.none
        var emojis: [Emoji]?
        var lastID: Int?
        var version: Int?
        repeat {
            skipWhitespace()
            guard let key = rootKey(), seen.insert(key).inserted else { return nil }
            skipWhitespace()
            guard take(UInt8(ascii: ":")) else { return nil }
            skipWhitespace()
            switch key {
            case .format:
                guard let marker = string(), marker == DocumentFormat.nativeMarker else { return nil }
            case .formatVersion:
                version = integer()
            case .title:
                guard let text = string() else { return nil }
                title = text
            case .background:
                guard let text = string(), let parsed = try? Background(parsing: text) else { return nil }
                background = parsed
            case .emojis:
                emojis = emojiList()
            case .uniqueEmojiId:
                lastID = integer()
            }
            skipWhitespace()
        } while take(UInt8(ascii: ","))
        guard take(UInt8(ascii: "}")) else { return nil }
        skipWhitespace()
        guard index == bytes.count, seen.contains(.format), let version,
            (1...DocumentFormat.nativeVersion).contains(version),
            let emojis, let lastID, DocumentLimits.idRange.contains(lastID)
        else { return nil }
        return try? EmojiArtDocument(
            title: title, background: background, emojis: emojis, nextEmojiID: lastID + 1, path: "",
            fieldNames: .cs193p2023, textsChecked: true)
    }

    private enum Key: Hashable {
        case format, formatVersion, title, background, emojis, uniqueEmojiId
    }

    private mutating func rootKey() -> Key? {
        if take("\"format\"") { return .format }
        if take("\"formatVersion\"") { return .formatVersion }
        if take("\"title\"") { return .title }
        if take("\"background\"") { return .background }
        if take("\"emojis\"") { return .emojis }
        if take("\"uniqueEmojiId\"") { return .uniqueEmojiId }
        return nil
    }

    private mutating func emojiList() -> [Emoji]? {
        guard take(UInt8(ascii: "[")) else { return nil }
        var emojis: [Emoji] = []
        // Our writer's emojis take 60–80 bytes: a good first guess at the count.
        emojis.reserveCapacity(min(bytes.count / 64, DocumentLimits.maximumEmojiCount))
        skipWhitespace()
        if take(UInt8(ascii: "]")) { return emojis }
        repeat {
            skipWhitespace()
            guard emojis.count < DocumentLimits.maximumEmojiCount, let emoji = emoji() else { return nil }
            emojis.append(emoji)
            skipWhitespace()
        } while take(UInt8(ascii: ","))
        guard take(UInt8(ascii: "]")) else { return nil }
        return emojis
    }

    private mutating func emoji() -> Emoji? {
        guard take(UInt8(ascii: "{")) else { return nil }
        var id: Int?
        var text: String?
        var position: Point?
        var size: Int?
        var rotation = 0
        var locked = false
        repeat {
            skipWhitespace()
            if take("\"id\"") {
                guard colon(), let value = integer() else { return nil }
                id = value
            } else if take("\"string\"") {
                guard colon(), let value = emojiText() else { return nil }
                text = value
            } else if take("\"position\"") {
                guard colon(), let value = point() else { return nil }
                position = value
            } else if take("\"size\"") {
                guard colon(), let value = integer() else { return nil }
                size = value
            } else if take("\"rotation\"") {
                guard colon(), let value = integer() else { return nil }
                rotation = value
            } else if take("\"locked\"") {
                guard colon() else { return nil }
                skipWhitespace()
                if take("true") {
                    locked = true
                } else if take("false") {
                    locked = false
                } else {
                    return nil
                }
            } else {
                return nil
            }
            skipWhitespace()
        } while take(UInt8(ascii: ","))
        guard take(UInt8(ascii: "}")), let id, let text, let position, let size else { return nil }
        return Emoji(id: id, text: text, position: position, size: size, rotation: rotation, locked: locked)
    }

    private mutating func point() -> Point? {
        guard take(UInt8(ascii: "{")) else { return nil }
        var x: Int?
        var y: Int?
        repeat {
            skipWhitespace()
            if take("\"x\"") {
                guard colon(), let value = integer() else { return nil }
                x = value
            } else if take("\"y\"") {
                guard colon(), let value = integer() else { return nil }
                y = value
            } else {
                return nil
            }
            skipWhitespace()
        } while take(UInt8(ascii: ","))
        guard take(UInt8(ascii: "}")), let x, let y else { return nil }
        return Point(x: x, y: y)
    }

    /// An emoji's text: made and checked once per distinct run of bytes.
    private mutating func emojiText() -> String? {
        guard let (start, end) = plainString() else { return nil }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325  // FNV-1a
        for position in start..<end { hash = (hash ^ UInt64(bytes[position])) &* 0x100_0000_01b3 }
        if let known = texts[hash], known.count == end - start,
            memcmp(bytes.baseAddress! + known.start, bytes.baseAddress! + start, end - start) == 0
        {
            return known.text
        }
        guard let text = String(validating: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self),
            (try? Emoji.validateText(text, path: "")) != nil
        else { return nil }
        if texts[hash] == nil { texts[hash] = (start, end - start, text) }
        return text
    }

    private mutating func string() -> String? {
        guard let (start, end) = plainString() else { return nil }
        return String(validating: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
    }

    /// The bytes between a string's quotes, which must hold no escape or control character.
    private mutating func plainString() -> (Int, Int)? {
        guard take(UInt8(ascii: "\"")) else { return nil }
        let start = index
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                index += 1
                return (start, index - 1)
            }
            if byte == UInt8(ascii: "\\") || byte < 0x20 { return nil }
            index += 1
        }
        return nil
    }

    /// A JSON integer of at most 18 digits, not followed by a fraction or exponent.
    private mutating func integer() -> Int? {
        let negative = take(UInt8(ascii: "-"))
        let start = index
        var value = 0
        while index < bytes.count, bytes[index] &- UInt8(ascii: "0") < 10 {
            value = value &* 10 &+ Int(bytes[index] &- UInt8(ascii: "0"))
            index += 1
        }
        let digits = index - start
        guard digits > 0, digits <= 18, digits == 1 || bytes[start] != UInt8(ascii: "0") else { return nil }
        if index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E"): return nil
            default: break
            }
        }
        return negative ? -value : value
    }

    private mutating func colon() -> Bool {
        skipWhitespace()
        guard take(UInt8(ascii: ":")) else { return false }
        skipWhitespace()
        return true
    }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x0A, 0x0D, 0x09: index += 1
            default: return
            }
        }
    }

    private mutating func take(_ byte: UInt8) -> Bool {
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    private mutating func take(_ literal: StaticString) -> Bool {
        let count = literal.utf8CodeUnitCount
        guard index + count <= bytes.count, memcmp(bytes.baseAddress! + index, literal.utf8Start, count) == 0 else {
            return false
        }
        index += count
        return true
    }
}
