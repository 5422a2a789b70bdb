import Foundation

/// A batch of edits as a client submits it: the version it last saw, the edits (applied
/// atomically as one undo step), and an optional gesture key. Read with the core's JSON parser,
/// so it is fast and its errors name the field (`edits[0].ids: expected an array`).
///
/// Wire form: `{"baseVersion": 3, "edits": [Edit, …], "gesture": "drag-1"}`, or `"edit": Edit`
/// for one, each edit in ``Edit``'s one wire form (``Edit/init(json:)-(Array<UInt8>)``,
/// ``Edit/write(into:)``): the same reader and writer serve the server, the log and the tests.
public struct EditSubmission: Equatable, Sendable {
    public var baseVersion: Int
    public var edits: [Edit]
    public var gesture: String?

    public init(baseVersion: Int, edits: [Edit], gesture: String? = nil) {
        self.baseVersion = baseVersion
        self.edits = edits
        self.gesture = gesture
    }

    /// What the submission asks, the same bytes however its JSON was spelled (the order of
    /// fields, spacing, `edit` or `edits`): to tell one request from another.
    public var canonicalBytes: [UInt8] {
        Array("\(baseVersion) \(gesture.map { "\($0.utf8.count) \($0)" } ?? "-") ".utf8) + Edit.encodeList(edits)
    }

    /// Longest gesture key accepted.
    public static let maximumGestureLength = 128

    /// Parses a submission.
    public init(json bytes: [UInt8]) throws {
        try self.init(root: JSONField(try JSONParser.parse(bytes)))
    }

    package init(root: JSONField) throws {
        _ = try root.members()
        let base = try root.required("baseVersion")
        baseVersion = try base.integer()
        guard baseVersion >= 0 else {
            throw EmojiArtError(.outOfRange, "a version is a whole number, 0 or more.", path: base.path)
        }
        switch (try root.optional("edits"), try root.optional("edit")) {
        case (let list?, nil):
            edits = try list.elements().map(Edit.init(json:))
        case (nil, let single?):
            edits = [try Edit(json: single)]
        default:
            throw root.failure("send either \"edits\" (a list) or \"edit\" (one edit).")
        }
        if edits.contains(where: \.isRestoreVersion) {
            throw root.failure("a version is restored with POST /api/documents/{id}/restore, not sent as an edit.")
        }
        if let key = try root.optional("gesture"), !key.isNull {
            let text = try key.string()
            guard text.count <= EditSubmission.maximumGestureLength else {
                throw key.failure("a gesture key has at most \(EditSubmission.maximumGestureLength) characters.")
            }
            gesture = text
        } else {
            gesture = nil
        }
    }
}

extension Edit {
    /// Reads one edit in its wire form, e.g.
    /// `{"type":"moveEmojis","ids":[4],"offset":{"x":-3,"y":2}}` (ids may also come as
    /// `idRanges`: ``IDRanges``). Backgrounds are `null`, an http(s) URL or a `data:image/…` URL.
    public init(json bytes: [UInt8]) throws {
        try self.init(json: JSONField(try JSONParser.parse(bytes)))
    }

    /// The edit in its wire form (what ``init(json:)-(Array<UInt8>)`` reads).
    public var json: [UInt8] {
        var writer = JSONWriter(reservingCapacity: 96)
        write(into: &writer)
        return writer.bytes
    }

    /// Reads one edit in its wire form.
    init(json field: JSONField) throws {
        let edit = field.resolved()
        let type = try edit.required("type")
        let name = try type.string()
        switch name {
        case "setBackground":
            let background = try edit.required("background")
            self = .setBackground(
                background.isNull ? .none : try Background(parsing: try background.string(), path: background.path))
        case "addEmoji":
            self = .addEmoji(
                text: try edit.required("text").string(), position: try edit.required("position").point(),
                size: try edit.required("size").integer())
        case "moveEmojis":
            self = .moveEmojis(ids: try edit.ids(), offset: try edit.required("offset").point())
        case "resizeEmojis":
            self = .resizeEmojis(ids: try edit.ids(), scale: try edit.required("scale").double())
        case "setEmojiSizes":
            self = .setEmojiSizes(
                try edit.required("sizes").elements().map {
                    let size = $0.resolved()
                    return EmojiSize(id: try size.required("id").integer(), size: try size.required("size").integer())
                })
        case "deleteEmojis":
            self = .deleteEmojis(ids: try edit.ids())
        case "restoreEmojis":
            self = .restoreEmojis(
                try edit.required("emojis").elements().map {
                    let placed = $0.resolved()
                    let emoji = try placed.required("emoji").resolved()
                    return PlacedEmoji(
                        index: try placed.required("index").integer(),
                        emoji: Emoji(
                            id: try emoji.required("id").integer(), text: try emoji.required("text").string(),
                            position: try emoji.required("position").point(),
                            size: try emoji.required("size").integer(),
                            rotation: try emoji.optional("rotation").map { try $0.integer() } ?? 0,
                            locked: try emoji.lockedFlag()
                        ))
                })
        case "retitle":
            self = .retitle(try edit.required("title").string())
        case "reorder":
            let to = try edit.required("to")
            guard let placement = ReorderPlacement(rawValue: try to.string()) else {
                throw to.failure("use \"front\", \"back\", \"forward\" or \"backward\".")
            }
            self = .reorder(ids: try edit.ids(), to: placement)
        case "setEmojiOrder":
            self = .setEmojiOrder(
                try edit.required("order").elements().map {
                    let place = $0.resolved()
                    return EmojiIndex(
                        id: try place.required("id").integer(), index: try place.required("index").integer())
                })
        case "paste", "mosaic":
            let emojis = try edit.required("emojis").elements().map {
                let emoji = $0.resolved()
                return NewEmoji(
                    text: try emoji.required("text").string(), position: try emoji.required("position").point(),
                    size: try emoji.required("size").integer(),
                    rotation: try emoji.optional("rotation").map { try $0.integer() } ?? 0)
            }
            self = name == "paste" ? .paste(emojis) : .mosaic(emojis)
        case "duplicate":
            self = .duplicate(ids: try edit.ids(), offset: try edit.required("offset").point())
        case "rotate":
            self = .rotate(ids: try edit.ids(), degrees: try edit.required("degrees").integer())
        case "replaceEmoji":
            self = .replaceEmoji(ids: try edit.ids(), text: try edit.required("text").string())
        case "setEmojiTexts":
            self = .setEmojiTexts(
                try edit.required("texts").elements().map {
                    let text = $0.resolved()
                    return EmojiText(id: try text.required("id").integer(), text: try text.required("text").string())
                })
        case "setLocked":
            let locked = try edit.required("locked")
            guard case .bool(let flag) = locked.value else { throw locked.failure("expected true or false.") }
            self = .setLocked(ids: try edit.ids(), locked: flag)
        case "restoreVersion":
            let background = try edit.required("background")
            let emojis = try edit.required("emojis").elements().map { field in
                let emoji = field.resolved()
                return Emoji(
                    id: try emoji.required("id").integer(), text: try emoji.required("text").string(),
                    position: try emoji.required("position").point(), size: try emoji.required("size").integer(),
                    rotation: try emoji.optional("rotation").map { try $0.integer() } ?? 0,
                    locked: try emoji.lockedFlag())
            }
            self = .restoreVersion(
                RestoredVersion(
                    version: try edit.optional("version").map { try $0.integer() },
                    actionName: try edit.required("actionName").string(),
                    document: try EmojiArtDocument(
                        title: try edit.required("title").string(),
                        background: background.isNull
                            ? .none : try Background(parsing: try background.string(), path: background.path),
                        emojis: emojis, nextEmojiID: try edit.required("nextEmojiId").integer(),
                        path: edit.path)))
        case let other:
            throw type.failure("\"\(other.prefix(40))\" is not an edit type.")
        }
    }

    /// Writes the edit in its wire form (the same as its `Codable` form).
    public func write(into writer: inout JSONWriter) {
        writer.raw("{")
        writer.key("type")
        switch self {
        case .setBackground(let background):
            writer.string("setBackground")
            writer.raw(",")
            writer.key("background")
            writer.background(background)
        case .addEmoji(let text, let position, let size):
            writer.string("addEmoji")
            writer.raw(",")
            writer.key("text")
            writer.string(text)
            writer.raw(",")
            writer.key("position")
            writer.point(position)
            writer.raw(",")
            writer.key("size")
            writer.integer(size)
        case .moveEmojis(let ids, let offset):
            writer.string("moveEmojis")
            writer.raw(",")
            writer.ids(ids)
            writer.raw(",")
            writer.key("offset")
            writer.point(offset)
        case .resizeEmojis(let ids, let scale):
            writer.string("resizeEmojis")
            writer.raw(",")
            writer.ids(ids)
            writer.raw(",")
            writer.key("scale")
            writer.double(scale)
        case .setEmojiSizes(let sizes):
            writer.string("setEmojiSizes")
            writer.raw(",")
            writer.key("sizes")
            writer.raw("[")
            for (index, size) in sizes.enumerated() {
                if index > 0 { writer.raw(",") }
                writer.raw("{")
                writer.key("id")
                writer.integer(size.id)
                writer.raw(",")
                writer.key("size")
                writer.integer(size.size)
                writer.raw("}")
            }
            writer.raw("]")
        case .deleteEmojis(let ids):
            writer.string("deleteEmojis")
            writer.raw(",")
            writer.ids(ids)
        case .restoreEmojis(let placed):
            writer.string("restoreEmojis")
            writer.raw(",")
            writer.key("emojis")
            writer.raw("[")
            for (index, item) in placed.enumerated() {
                if index > 0 { writer.raw(",") }
                writer.raw("{")
                writer.key("index")
                writer.integer(item.index)
                writer.raw(",")
                writer.key("emoji")
                writer.raw("{")
                writer.key("id")
                writer.integer(item.emoji.id)
                writer.raw(",")
                writer.emojiContent(
                    text: item.emoji.text, position: item.emoji.position, size: item.emoji.size,
                    rotation: item.emoji.rotation, locked: item.emoji.locked)
                writer.raw("}}")
            }
            writer.raw("]")
        case .retitle(let title):
            writer.string("retitle")
            writer.raw(",")
            writer.key("title")
            writer.string(title)
        case .reorder(let ids, let placement):
            writer.string("reorder")
            writer.raw(",")
            writer.ids(ids)
            writer.raw(",")
            writer.key("to")
            writer.string(placement.rawValue)
        case .setEmojiOrder(let places):
            writer.string("setEmojiOrder")
            writer.raw(",")
            writer.key("order")
            writer.raw("[")
            for (index, place) in places.enumerated() {
                if index > 0 { writer.raw(",") }
                writer.raw("{")
                writer.key("id")
                writer.integer(place.id)
                writer.raw(",")
                writer.key("index")
                writer.integer(place.index)
                writer.raw("}")
            }
            writer.raw("]")
        case .paste(let emojis), .mosaic(let emojis):
            if case .paste = self { writer.string("paste") } else { writer.string("mosaic") }
            writer.raw(",")
            writer.key("emojis")
            writer.raw("[")
            for (index, emoji) in emojis.enumerated() {
                if index > 0 { writer.raw(",") }
                writer.raw("{")
                writer.emojiContent(
                    text: emoji.text, position: emoji.position, size: emoji.size, rotation: emoji.rotation)
                writer.raw("}")
            }
            writer.raw("]")
        case .duplicate(let ids, let offset):
            writer.string("duplicate")
            writer.raw(",")
            writer.ids(ids)
            writer.raw(",")
            writer.key("offset")
            writer.point(offset)
        case .rotate(let ids, let degrees):
            writer.string("rotate")
            writer.raw(",")
            writer.ids(ids)
            writer.raw(",")
            writer.key("degrees")
            writer.integer(degrees)
        case .replaceEmoji(let ids, let text):
            writer.string("replaceEmoji")
            writer.raw(",")
            writer.ids(ids)
            writer.raw(",")
            writer.key("text")
            writer.string(text)
        case .setEmojiTexts(let texts):
            writer.string("setEmojiTexts")
            writer.raw(",")
            writer.key("texts")
            writer.raw("[")
            for (index, text) in texts.enumerated() {
                if index > 0 { writer.raw(",") }
                writer.raw("{")
                writer.key("id")
                writer.integer(text.id)
                writer.raw(",")
                writer.key("text")
                writer.string(text.text)
                writer.raw("}")
            }
            writer.raw("]")
        case .setLocked(let ids, let locked):
            writer.string("setLocked")
            writer.raw(",")
            writer.ids(ids)
            writer.raw(",")
            writer.key("locked")
            if locked { writer.raw("true") } else { writer.raw("false") }
        case .restoreVersion(let restored):
            let document = restored.document
            writer.string("restoreVersion")
            if let version = restored.version {
                writer.raw(",")
                writer.key("version")
                writer.integer(version)
            }
            writer.raw(",")
            writer.key("actionName")
            writer.string(restored.actionName)
            writer.raw(",")
            writer.key("title")
            writer.string(document.title)
            writer.raw(",")
            writer.key("background")
            writer.background(document.background)
            writer.raw(",")
            writer.key("emojis")
            writer.raw("[")
            for (index, emoji) in document.emojis.enumerated() {
                if index > 0 { writer.raw(",") }
                writer.raw("{")
                writer.key("id")
                writer.integer(emoji.id)
                writer.raw(",")
                writer.emojiContent(
                    text: emoji.text, position: emoji.position, size: emoji.size, rotation: emoji.rotation,
                    locked: emoji.locked)
                writer.raw("}")
            }
            writer.raw("]")
            writer.raw(",")
            writer.key("nextEmojiId")
            writer.integer(document.nextEmojiID)
        }
        writer.raw("}")
    }

    /// Encodes a list of edits as a JSON array (the edit log's form).
    public static func encodeList(_ edits: [Edit]) -> [UInt8] {
        var writer = JSONWriter(reservingCapacity: 96 * edits.count)
        writer.raw("[")
        for (index, edit) in edits.enumerated() {
            if index > 0 { writer.raw(",") }
            edit.write(into: &writer)
        }
        writer.raw("]")
        return writer.bytes
    }

    /// Decodes a JSON array of edits written by ``encodeList(_:)``.
    public static func decodeList(_ bytes: [UInt8]) throws -> [Edit] {
        try JSONField(try JSONParser.parse(bytes)).elements().map(Edit.init(json:))
    }
}

extension JSONField {
    /// `{"x": Int, "y": Int}`
    package func point() throws -> Point {
        let point = resolved()
        return Point(x: try point.required("x").integer(), y: try point.required("y").integer())
    }

    package func integers() throws -> [Int] {
        try elements().map { try $0.integer() }
    }

    /// An edit's emojis: `"ids": [1, 2, 3]`, or `"idRanges": [[1, 3]]` (``IDRanges``) — one of
    /// the two.
    package func ids() throws -> [Int] {
        switch (try optional("ids"), try optional("idRanges")) {
        case (let ids?, nil):
            return try ids.integers()
        case (nil, let ranges?):
            let runs = try ranges.elements().map { range in
                let ends = try range.elements()
                guard ends.count == 2 else { throw range.failure("a range is [first, last].") }
                return (first: try ends[0].integer(), last: try ends[1].integer())
            }
            return try IDRanges.expand(runs, path: ranges.path)
        case (.some, .some):
            throw try required("idRanges").failure("give \"ids\" or \"idRanges\", not both.")
        case (nil, nil):
            return try required("ids").integers()  // throws: the field is missing
        }
    }

    /// An emoji's `"locked"`: absent or false, or true.
    package func lockedFlag() throws -> Bool {
        guard let field = try optional("locked"), !field.isNull else { return false }
        guard case .bool(let flag) = field.value else { throw field.failure("expected true or false.") }
        return flag
    }

    /// Any finite number.
    package func double() throws -> Double {
        switch value {
        case .integer(let integer): return Double(integer)
        case .double(let double) where double.isFinite: return double
        default: throw failure("expected a number, found \(value.kindDescription).")
        }
    }
}

extension JSONWriter {
    /// `null`, an http(s) URL, or a `data:` URL, as the native file has it.
    mutating func background(_ background: Background) {
        switch background {
        case .none: raw("null")
        case .url(let url): string(url.absoluteString)
        case .image(let data, let mimeType): string(DataURL(mimeType: mimeType, data: data).absoluteString)
        }
    }

    package mutating func point(_ point: Point) {
        raw("{")
        key("x")
        integer(point.x)
        raw(",")
        key("y")
        integer(point.y)
        raw("}")
    }

    /// An emoji's fields but its id: `"text", "position", "size"`, `"rotation"` when turned, and
    /// `"locked": true` when locked.
    mutating func emojiContent(text: String, position: Point, size: Int, rotation: Int, locked: Bool = false) {
        key("text")
        string(text)
        raw(",")
        key("position")
        self.point(position)
        raw(",")
        key("size")
        integer(size)
        if rotation != 0 {
            raw(",")
            key("rotation")
            integer(rotation)
        }
        if locked {
            raw(",")
            key("locked")
            raw("true")
        }
    }

    /// `"ids": [...]`, or `"idRanges": [[first, last], ...]` when that is shorter.
    package mutating func ids(_ ids: [Int]) {
        if let runs = IDRanges.compressed(ids) {
            key("idRanges")
            idRanges(runs)
        } else {
            key("ids")
            integers(ids)
        }
    }

    /// `[[first, last], ...]`.
    package mutating func idRanges(_ runs: [ClosedRange<Int>]) {
        raw("[")
        for (index, run) in runs.enumerated() {
            if index > 0 { raw(",") }
            raw("[")
            integer(run.lowerBound)
            raw(",")
            integer(run.upperBound)
            raw("]")
        }
        raw("]")
    }

    package mutating func integers(_ values: [Int]) {
        raw("[")
        for (index, value) in values.enumerated() {
            if index > 0 { raw(",") }
            integer(value)
        }
        raw("]")
    }

    /// A finite double, as Swift prints it (shortest round-tripping form).
    package mutating func double(_ value: Double) {
        for byte in "\(value.isFinite ? value : 0)".utf8 { append(byte) }
    }
}
