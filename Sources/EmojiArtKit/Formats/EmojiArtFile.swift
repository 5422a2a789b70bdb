import Foundation

/// Reads and writes `.emojiart` files in every format of ``DocumentFormat``.
///
/// ```swift
/// let decoded = try EmojiArtFile.read(Array(data))
/// print(decoded.format)  // .cs193p2021
/// let native = EmojiArtFile.write(decoded.document, as: .native).bytes
/// ```
public enum EmojiArtFile {
    /// Reads a file of any supported format, detecting which.
    ///
    /// - Parameter defaultTitle: the title for formats that have none (the CLI passes the file name).
    /// - Throws: ``EmojiArtError`` naming the bad field's path; never half-loads.
    public static func read(
        _ bytes: [UInt8], defaultTitle: String = EmojiArtDocument.defaultTitle
    ) throws -> DecodedDocument {
        guard bytes.count <= DocumentLimits.maximumFileBytes else {
            throw EmojiArtError(
                .tooLarge,
                "the file is \(bytes.count) bytes; EmojiArt files are at most \(DocumentLimits.maximumFileBytes) bytes."
            )
        }
        if PictureDocument.isPNG(bytes) {
            // A picture exported by EmojiArt: the document travels inside it.
            var decoded = try read(PictureDocument.extract(bytes), defaultTitle: defaultTitle)
            decoded.isPicture = true
            return decoded
        }
        if let document = NativeFastReader.read(bytes, defaultTitle: defaultTitle) {
            return DecodedDocument(document: document, format: .native, notes: [])
        }
        return try readTree(bytes, defaultTitle: defaultTitle)
    }

    /// The general reader: any format, through a JSON tree, with errors that name the bad field.
    static func readTree(_ bytes: [UInt8], defaultTitle: String) throws -> DecodedDocument {
        let root = JSONField(try JSONParser.parse(bytes))
        _ = try root.members()
        let format = try detectFormat(root)
        var reader = Reader(format: format)
        let document = try reader.document(from: root, defaultTitle: defaultTitle)
        return DecodedDocument(document: document, format: format, notes: reader.notes)
    }

    /// Native if it carries our marker; 2021 if its background is an object or its emojis use
    /// 2021 keys; otherwise 2023.
    static func detectFormat(_ root: JSONField) throws -> DocumentFormat {
        if let marker = try root.optional("format") {
            guard try marker.string() == DocumentFormat.nativeMarker else {
                throw marker.failure("\"\(try marker.string().prefix(40))\" is not an EmojiArt file marker.")
            }
            let version = try root.required("formatVersion").integer()
            guard version <= DocumentFormat.nativeVersion else {
                throw EmojiArtError(
                    .unsupportedVersion,
                    "this file is EmojiArt format version \(version); this emojiart reads versions up to \(DocumentFormat.nativeVersion). Update emojiart to open it.",
                    path: "formatVersion")
            }
            guard version >= 1 else {
                throw EmojiArtError(.invalidFile, "format version \(version) does not exist.", path: "formatVersion")
            }
            return .native
        }
        if case .object? = try root.optional("background")?.value { return .cs193p2021 }
        if let first = try root.optional("emojis")?.elements().first,
            case .object(let members) = first.value,
            members.contains(where: { $0.key == "text" || $0.key == "x" })
        {
            return .cs193p2021
        }
        return .cs193p2023
    }

    /// Writes a document in a format.
    ///
    /// - Parameter implicitTitle: a title that needs no saving because it came from outside the
    ///   file (the CLI passes the file's name), so formats without titles don't note its loss.
    public static func write(
        _ document: EmojiArtDocument, as format: DocumentFormat, implicitTitle: String? = nil
    ) -> EncodedDocument {
        var writer = JSONWriter(reservingCapacity: 64 + document.emojis.count * 72)
        var notes: [String] = []
        writer.raw("{")
        if format == .native {
            writer.key("format")
            writer.string(DocumentFormat.nativeMarker)
            writer.raw(",")
            writer.key("formatVersion")
            writer.integer(DocumentFormat.nativeVersion)
            writer.raw(",")
            writer.key("title")
            writer.string(document.title)
            writer.raw(",")
        } else if document.title != EmojiArtDocument.defaultTitle, document.title != implicitTitle {
            notes.append("The \(format.displayName) format has no title; \"\(document.title)\" is not saved.")
        }
        switch (format, document.background) {
        case (.cs193p2021, .none):
            writer.key("background")
            writer.raw("{},")
        case (.cs193p2021, .url(let url)):
            writer.key("background")
            writer.raw("{")
            writer.key("theURL")
            writer.string(url.absoluteString)
            writer.raw("},")
        case (.cs193p2021, .image(_, let mimeType))
        where ImageSignature.mimeType(of: document.backgroundImageData) == nil:
            notes.append(
                "The CS193P 2021 format only holds PNG, JPEG, GIF or WebP image data; the \(mimeType) background is not saved."
            )
            writer.key("background")
            writer.raw("{},")
        case (.cs193p2021, .image(let data, _)):
            writer.key("background")
            writer.raw("{")
            writer.key("imageData")
            writer.string(data.base64EncodedString())
            writer.raw("},")
        case (_, .none):
            break  // absent means none in the 2023 and native formats
        case (_, .url(let url)):
            writer.key("background")
            writer.string(url.absoluteString)
            writer.raw(",")
        case (_, .image(let data, let mimeType)):
            if format == .cs193p2023 {
                notes.append(
                    "The CS193P 2023 format has no embedded images; the background image is written as a data: URL, which the 2023 app loads like any URL."
                )
            }
            writer.key("background")
            writer.string(DataURL(mimeType: mimeType, data: data).absoluteString)
            writer.raw(",")
        }
        writer.key("emojis")
        writer.raw("[")
        for (index, emoji) in document.emojis.enumerated() {
            if index > 0 { writer.raw(",") }
            if format == .cs193p2021 {
                writer.raw("{")
                writer.key("text")
                writer.string(emoji.text)
                writer.raw(",")
                writer.key("x")
                writer.integer(emoji.position.x)
                writer.raw(",")
                writer.key("y")
                writer.integer(-emoji.position.y)  // the 2021 format's y points down
            } else {
                writer.raw("{")
                writer.key("string")
                writer.string(emoji.text)
                writer.raw(",")
                writer.key("position")
                writer.raw("{")
                writer.key("x")
                writer.integer(emoji.position.x)
                writer.raw(",")
                writer.key("y")
                writer.integer(emoji.position.y)
                writer.raw("}")
            }
            writer.raw(",")
            writer.key("size")
            writer.integer(emoji.size)
            if format == .native, emoji.rotation != 0 {
                writer.raw(",")
                writer.key("rotation")
                writer.integer(emoji.rotation)
            }
            if format == .native, emoji.locked {
                writer.raw(",")
                writer.key("locked")
                writer.raw("true")
            }
            writer.raw(",")
            writer.key("id")
            writer.integer(emoji.id)
            writer.raw("}")
        }
        writer.raw("],")
        let rotated = format == .native ? 0 : document.emojis.lazy.filter { $0.rotation != 0 }.count
        if rotated > 0 {
            notes.append(
                "The \(format.displayName) format has no rotation; \(rotated == 1 ? "1 turned emoji is" : "\(rotated) turned emojis are") saved upright."
            )
        }
        let locked = format == .native ? 0 : document.emojis.lazy.filter(\.locked).count
        if locked > 0 {
            notes.append(
                "The \(format.displayName) format has no locks; \(locked == 1 ? "1 locked emoji is" : "\(locked) locked emojis are") saved unlocked."
            )
        }
        // The originals store the last id handed out; we store the next one to hand out.
        writer.key("uniqueEmojiId")
        writer.integer(document.nextEmojiID - 1)
        writer.raw("}")
        return EncodedDocument(bytes: writer.bytes, notes: notes)
    }
}

/// Turns a parsed file of a known format into a document.
private struct Reader {
    let format: DocumentFormat
    var notes: [String] = []

    init(format: DocumentFormat) {
        self.format = format
    }

    mutating func document(from root: JSONField, defaultTitle: String) throws -> EmojiArtDocument {
        var title = defaultTitle
        if format == .native, let field = try root.optional("title"), !field.isNull {
            title = try field.string()
        }
        let background = try self.background(from: root)
        let emojiFields = try root.required("emojis").elements()
        guard emojiFields.count <= DocumentLimits.maximumEmojiCount else {
            throw EmojiArtError(
                .tooLarge,
                "the file has \(emojiFields.count) emojis; the limit is \(DocumentLimits.maximumEmojiCount).",
                path: "emojis")
        }
        let emojis = try emojiFields.map(emoji(from:))
        let uniqueEmojiID = try root.required("uniqueEmojiId")
        let lastID = try uniqueEmojiID.integer()
        guard DocumentLimits.idRange.contains(lastID) else {
            throw EmojiArtError(
                .outOfRange, "\(lastID) is outside \(DocumentLimits.idRange).", path: uniqueEmojiID.path)
        }
        return try EmojiArtDocument(
            title: title, background: background, emojis: emojis, nextEmojiID: lastID + 1, path: "",
            fieldNames: format == .cs193p2021 ? .cs193p2021 : .cs193p2023)
    }

    private func emoji(from element: JSONField) throws -> Emoji {
        if let emoji = Reader.quickEmoji(element.value, format: format) { return emoji }
        // Anything unusual (a missing field, a wrong type, 2.0 for an integer): read it field by
        // field, which names the bad field in its error.
        let field = element.resolved()
        if format == .cs193p2021 {
            return Emoji(
                id: try field.required("id").integer(),
                text: try field.required("text").string(),
                // y points down in this format. Int.min has no negation; any value that large is
                // out of range anyway, and the document's validation says so.
                position: Point(
                    x: try field.required("x").integer(),
                    y: try field.required("y").integer().negatedClampingOverflow),
                size: try field.required("size").integer())
        }
        let position = try field.required("position").resolved()
        let rotation = format == .native ? try field.optional("rotation") : nil
        return Emoji(
            id: try field.required("id").integer(),
            text: try field.required("string").string(),
            position: Point(x: try position.required("x").integer(), y: try position.required("y").integer()),
            size: try field.required("size").integer(),
            rotation: try rotation.map { try $0.integer() } ?? 0,
            locked: format == .native ? try field.lockedFlag() : false)
    }

    /// The common case in one pass over the members, with no path bookkeeping: an object with
    /// integer `id`, `size`, coordinates and a string text. Nil for anything else.
    private static func quickEmoji(_ value: JSONValue, format: DocumentFormat) -> Emoji? {
        guard case .object(let members) = value else { return nil }
        var id: Int?
        var text: String?
        var x: Int?
        var y: Int?
        var size: Int?
        var rotation = 0
        var locked = false
        let textKey = format == .cs193p2021 ? "text" : "string"
        for (key, value) in members {
            switch (key, value) {
            case ("id", .integer(let integer)): id = integer
            case ("rotation", .integer(let integer)) where format == .native: rotation = integer
            case ("rotation", _) where format == .native: return nil
            case ("locked", .bool(let flag)) where format == .native: locked = flag
            case ("locked", .null) where format == .native: continue
            case ("locked", _) where format == .native: return nil
            case ("size", .integer(let integer)): size = integer
            case (textKey, .string(let string)): text = string
            case ("x", .integer(let integer)) where format == .cs193p2021: x = integer
            case ("y", .integer(let integer)) where format == .cs193p2021: y = integer
            case ("position", .object(let position)) where format != .cs193p2021:
                x = nil
                y = nil
                for (coordinate, value) in position {
                    switch (coordinate, value) {
                    case ("x", .integer(let integer)): x = integer
                    case ("y", .integer(let integer)): y = integer
                    case ("x", _), ("y", _): return nil
                    default: continue
                    }
                }
            case ("id", _), ("size", _), (textKey, _), ("position", _), ("x", _), ("y", _):
                return nil
            default:
                continue
            }
        }
        guard let id, let text, let x, let y, let size, y != .min else { return nil }
        return Emoji(
            id: id, text: text, position: Point(x: x, y: format == .cs193p2021 ? -y : y), size: size,
            rotation: rotation,
            locked: locked)
    }

    private mutating func background(from root: JSONField) throws -> Background {
        guard let field = try root.optional("background"), !field.isNull else { return .none }
        if format == .cs193p2021 {
            return try background2021(field)
        }
        let text = try field.string()
        if text.prefix(5).lowercased() == "data:" {
            return try Background(parsing: text, path: field.path)
        }
        do {
            return try Background(parsing: text, path: field.path)
        } catch let error as EmojiArtError where format != .native && error.code == .invalidBackground {
            // The original app would show a blank canvas for an address it can't load.
            notes.append("The background \"\(text.prefix(100))\" is not an http(s) URL; opened without a background.")
            return .none
        }
    }

    /// `{"theURL": "…"}`, `{"imageData": "<base64>"}` or `{}`; like the original decoder, an
    /// object with neither readable key is a blank background.
    private mutating func background2021(_ field: JSONField) throws -> Background {
        if let url = try field.optional("theURL"), case .string(let text) = url.value {
            do {
                return .url(try Background.validatedWebURL(text, path: url.path))
            } catch let error as EmojiArtError where error.code == .invalidBackground || error.code == .tooLarge {
                notes.append(
                    "The background \"\(text.prefix(100))\" is not an http(s) URL; opened without a background.")
                return .none
            }
        }
        if let imageData = try field.optional("imageData"), case .string(let text) = imageData.value {
            guard let data = Base64.decode(text) else {
                throw EmojiArtError(.invalidFile, "the image data is not valid base64.", path: imageData.path)
            }
            guard let mimeType = ImageSignature.mimeType(of: data) else {
                notes.append(
                    "The background image data is not a PNG, JPEG, GIF or WebP image; opened without a background.")
                return .none
            }
            try Background.validateImage(data: data, mimeType: mimeType, path: imageData.path)
            return .image(data: data, mimeType: mimeType)
        }
        _ = try field.members()
        return .none
    }
}

extension Int {
    /// −self, or `Int.max` for `Int.min` (whose negation does not fit).
    fileprivate var negatedClampingOverflow: Int { self == .min ? .max : -self }
}

extension EmojiArtDocument {
    fileprivate var backgroundImageData: Data {
        if case .image(let data, _) = background { return data }
        return Data()
    }
}
