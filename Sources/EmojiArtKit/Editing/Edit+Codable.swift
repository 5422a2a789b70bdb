import Foundation

/// The wire form of an edit: an object with a `type` and that type's fields, e.g.
/// `{"type":"moveEmojis","ids":[4],"offset":{"x":-3,"y":2}}`. Backgrounds travel as the
/// native file format has them: `null`, an http(s) URL, or a `data:image/…` URL.
extension Edit: Codable {
    private enum CodingKeys: String, CodingKey {
        case type, background, text, position, size, ids, offset, scale, sizes, emojis, title, to, order, degrees, texts
        case version, actionName, nextEmojiId, idRanges
    }

    private enum Kind: String, Codable {
        case setBackground, addEmoji, moveEmojis, resizeEmojis, setEmojiSizes, deleteEmojis, restoreEmojis,
            retitle, reorder, setEmojiOrder, rotate, paste, mosaic, duplicate, replaceEmoji, setEmojiTexts,
            restoreVersion
    }

    /// `ids`, or `idRanges` (``IDRanges``) as the wire also allows.
    private static func ids(in container: KeyedDecodingContainer<CodingKeys>) throws -> [Int] {
        guard container.contains(.idRanges), !container.contains(.ids) else {
            return try container.decode([Int].self, forKey: .ids)
        }
        let runs = try container.decode([[Int]].self, forKey: .idRanges).map { run in
            guard run.count == 2 else {
                throw DecodingError.dataCorruptedError(
                    forKey: .idRanges, in: container, debugDescription: "a range is [first, last].")
            }
            return (first: run[0], last: run[1])
        }
        return try IDRanges.expand(runs, path: "idRanges")
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        switch try container.decode(Kind.self, forKey: .type) {
        case .setBackground:
            self = .setBackground(try container.decode(Background.self, forKey: .background))
        case .addEmoji:
            self = .addEmoji(
                text: try container.decode(String.self, forKey: .text),
                position: try container.decode(Point.self, forKey: .position),
                size: try container.decode(Int.self, forKey: .size))
        case .moveEmojis:
            self = .moveEmojis(
                ids: try Self.ids(in: container),
                offset: try container.decode(Point.self, forKey: .offset))
        case .resizeEmojis:
            self = .resizeEmojis(
                ids: try Self.ids(in: container),
                scale: try container.decode(Double.self, forKey: .scale))
        case .setEmojiSizes:
            self = .setEmojiSizes(try container.decode([EmojiSize].self, forKey: .sizes))
        case .deleteEmojis:
            self = .deleteEmojis(ids: try Self.ids(in: container))
        case .restoreEmojis:
            self = .restoreEmojis(try container.decode([PlacedEmoji].self, forKey: .emojis))
        case .retitle:
            self = .retitle(try container.decode(String.self, forKey: .title))
        case .reorder:
            self = .reorder(
                ids: try Self.ids(in: container),
                to: try container.decode(ReorderPlacement.self, forKey: .to))
        case .setEmojiOrder:
            self = .setEmojiOrder(try container.decode([EmojiIndex].self, forKey: .order))
        case .paste:
            self = .paste(try container.decode([NewEmoji].self, forKey: .emojis))
        case .mosaic:
            self = .mosaic(try container.decode([NewEmoji].self, forKey: .emojis))
        case .duplicate:
            self = .duplicate(
                ids: try Self.ids(in: container),
                offset: try container.decode(Point.self, forKey: .offset))
        case .rotate:
            self = .rotate(
                ids: try Self.ids(in: container),
                degrees: try container.decode(Int.self, forKey: .degrees))
        case .replaceEmoji:
            self = .replaceEmoji(
                ids: try Self.ids(in: container), text: try container.decode(String.self, forKey: .text))
        case .setEmojiTexts:
            self = .setEmojiTexts(try container.decode([EmojiText].self, forKey: .texts))
        case .restoreVersion:
            self = .restoreVersion(
                RestoredVersion(
                    version: try container.decodeIfPresent(Int.self, forKey: .version),
                    actionName: try container.decode(String.self, forKey: .actionName),
                    document: try EmojiArtDocument(
                        title: try container.decode(String.self, forKey: .title),
                        background: try container.decode(Background.self, forKey: .background),
                        emojis: try container.decode([Emoji].self, forKey: .emojis),
                        nextEmojiID: try container.decode(Int.self, forKey: .nextEmojiId))))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .setBackground(let background):
            try container.encode(Kind.setBackground, forKey: .type)
            try container.encode(background, forKey: .background)
        case .addEmoji(let text, let position, let size):
            try container.encode(Kind.addEmoji, forKey: .type)
            try container.encode(text, forKey: .text)
            try container.encode(position, forKey: .position)
            try container.encode(size, forKey: .size)
        case .moveEmojis(let ids, let offset):
            try container.encode(Kind.moveEmojis, forKey: .type)
            try container.encode(ids, forKey: .ids)
            try container.encode(offset, forKey: .offset)
        case .resizeEmojis(let ids, let scale):
            try container.encode(Kind.resizeEmojis, forKey: .type)
            try container.encode(ids, forKey: .ids)
            try container.encode(scale, forKey: .scale)
        case .setEmojiSizes(let sizes):
            try container.encode(Kind.setEmojiSizes, forKey: .type)
            try container.encode(sizes, forKey: .sizes)
        case .deleteEmojis(let ids):
            try container.encode(Kind.deleteEmojis, forKey: .type)
            try container.encode(ids, forKey: .ids)
        case .restoreEmojis(let emojis):
            try container.encode(Kind.restoreEmojis, forKey: .type)
            try container.encode(emojis, forKey: .emojis)
        case .retitle(let title):
            try container.encode(Kind.retitle, forKey: .type)
            try container.encode(title, forKey: .title)
        case .reorder(let ids, let placement):
            try container.encode(Kind.reorder, forKey: .type)
            try container.encode(ids, forKey: .ids)
            try container.encode(placement, forKey: .to)
        case .setEmojiOrder(let places):
            try container.encode(Kind.setEmojiOrder, forKey: .type)
            try container.encode(places, forKey: .order)
        case .paste(let emojis):
            try container.encode(Kind.paste, forKey: .type)
            try container.encode(emojis, forKey: .emojis)
        case .mosaic(let emojis):
            try container.encode(Kind.mosaic, forKey: .type)
            try container.encode(emojis, forKey: .emojis)
        case .duplicate(let ids, let offset):
            try container.encode(Kind.duplicate, forKey: .type)
            try container.encode(ids, forKey: .ids)
            try container.encode(offset, forKey: .offset)
        case .rotate(let ids, let degrees):
            try container.encode(Kind.rotate, forKey: .type)
            try container.encode(ids, forKey: .ids)
            try container.encode(degrees, forKey: .degrees)
        case .replaceEmoji(let ids, let text):
            try container.encode(Kind.replaceEmoji, forKey: .type)
            try container.encode(ids, forKey: .ids)
            try container.encode(text, forKey: .text)
        case .setEmojiTexts(let texts):
            try container.encode(Kind.setEmojiTexts, forKey: .type)
            try container.encode(texts, forKey: .texts)
        case .restoreVersion(let restored):
            try container.encode(Kind.restoreVersion, forKey: .type)
            try container.encodeIfPresent(restored.version, forKey: .version)
            try container.encode(restored.actionName, forKey: .actionName)
            try container.encode(restored.document.title, forKey: .title)
            try container.encode(restored.document.background, forKey: .background)
            try container.encode(Array(restored.document.emojis), forKey: .emojis)
            try container.encode(restored.document.nextEmojiID, forKey: .nextEmojiId)
        }
    }
}

extension Background: Codable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .none
            return
        }
        // An unusable background is an invalid edit, not malformed JSON: the core's error says why.
        self = try Background(parsing: try container.decode(String.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .none: try container.encodeNil()
        case .url(let url): try container.encode(url.absoluteString)
        case .image(let data, let mimeType):
            try container.encode(DataURL(mimeType: mimeType, data: data).absoluteString)
        }
    }
}
