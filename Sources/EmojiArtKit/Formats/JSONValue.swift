/// A parsed JSON value. The formats read files through this rather than `Codable` so that
/// every error names the field's path (`emojis[3].position.x`), integers are exact, and a
/// 10,000-emoji file decodes in a few milliseconds.
package enum JSONValue: Equatable, Sendable {
    case null
    case bool(Bool)
    /// An integer written without fraction or exponent that fits in `Int`.
    case integer(Int)
    /// Any other number.
    case double(Double)
    case string(String)
    case array([JSONValue])
    /// Members in file order; when a key repeats, the last one wins.
    case object([(key: String, value: JSONValue)])

    package static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case (.bool(let a), .bool(let b)): a == b
        case (.integer(let a), .integer(let b)): a == b
        case (.double(let a), .double(let b)): a == b
        case (.string(let a), .string(let b)): a == b
        case (.array(let a), .array(let b)): a == b
        case (.object(let a), .object(let b)): a.map(\.key) == b.map(\.key) && a.map(\.value) == b.map(\.value)
        default: false
        }
    }

    /// "an object", "a string", … for error messages.
    var kindDescription: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .integer, .double: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }
}

/// A JSON value together with where it is in the file, for reading fields with good errors.
///
/// The path is kept as the container's path plus this field's key or index and joined only
/// when asked for, so reading a valid file builds no path strings for its leaves.
package struct JSONField {
    enum Component {
        case none
        case key(String)
        case index(Int)
    }

    let value: JSONValue
    private let parentPath: String
    private let component: Component

    package init(_ value: JSONValue, path: String = "") {
        self.init(value, parentPath: path, component: .none)
    }

    private init(_ value: JSONValue, parentPath: String, component: Component) {
        self.value = value
        self.parentPath = parentPath
        self.component = component
    }

    /// `emojis[3].position`, or "" for the root.
    package var path: String {
        switch component {
        case .none: parentPath
        case .key(let key): parentPath.isEmpty ? key : parentPath + "." + key
        case .index(let index): parentPath + "[\(index)]"
        }
    }

    /// The same field with its path joined once, for a container whose members are read next.
    package func resolved() -> JSONField {
        JSONField(value, parentPath: path, component: .none)
    }

    package func failure(_ message: String) -> EmojiArtError {
        let path = self.path
        return EmojiArtError(.invalidFile, message, path: path.isEmpty ? nil : path)
    }

    private func expected(_ what: String) -> EmojiArtError {
        failure("expected \(what), found \(value.kindDescription).")
    }

    /// The object's members; throws unless this is an object.
    package func members() throws -> [(key: String, value: JSONValue)] {
        guard case .object(let members) = value else { throw expected("an object") }
        return members
    }

    /// The member, or nil when the key is absent (a `null` member is returned as `.null`).
    /// Call it on a ``resolved()`` field when reading several members.
    package func optional(_ key: String) throws -> JSONField? {
        let members = try members()
        guard let member = members.last(where: { $0.key == key }) else { return nil }
        return JSONField(member.value, parentPath: path, component: .key(key))
    }

    /// The member; throws if it is absent.
    package func required(_ key: String) throws -> JSONField {
        guard let field = try optional(key) else {
            throw JSONField(value, parentPath: path, component: .key(key)).failure("this required field is missing.")
        }
        return field
    }

    package func elements() throws -> [JSONField] {
        guard case .array(let elements) = value else { throw expected("an array") }
        let base = path
        return elements.enumerated().map { JSONField($1, parentPath: base, component: .index($0)) }
    }

    package func string() throws -> String {
        guard case .string(let string) = value else { throw expected("a string") }
        return string
    }

    /// An exact integer; `2.0` counts, `2.5`, `1e400` and 20-digit numbers do not.
    package func integer() throws -> Int {
        switch value {
        case .integer(let integer):
            return integer
        case .double(let double):
            guard double.isFinite, double.rounded() == double else {
                throw failure("expected a whole number, found \(double).")
            }
            guard let exact = Int(exactly: double) else {
                throw EmojiArtError(.outOfRange, "the number \(double) is too large.", path: path)
            }
            return exact
        default:
            throw expected("a whole number")
        }
    }

    package var isNull: Bool { value == .null }
}
