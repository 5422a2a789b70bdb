import EmojiArtKit

/// Where a window's pointer is and what it has selected, as it tells the others following the
/// same document (docs/API.md, "Presence"): `{"type": "presence", "pointer": {"x", "y"} | null,
/// "selection": [ids]}`. Presence is relayed, never applied: it touches neither the log nor the
/// store, and a window that leaves takes its presence with it.
public struct PresenceUpdate: Equatable, Sendable {
    /// The pointer in document points (y up), or nil when it is off the canvas.
    public var pointer: Point?
    /// The selected emoji ids (at most ``maximumSelection``; more are dropped).
    public var selection: [Int]

    public static let maximumSelection = 1_000

    public init(pointer: Point?, selection: [Int]) {
        self.pointer = pointer
        self.selection = selection
    }

    /// Reads the message's fields (its `type` has been read: "presence").
    package init(root: JSONField) throws {
        if let field = try root.optional("pointer"), !field.isNull {
            let point = try field.point()
            let range = 2 * DocumentLimits.coordinateRange.upperBound
            guard (-range...range).contains(point.x), (-range...range).contains(point.y) else {
                throw field.failure("the pointer is far outside the canvas.")
            }
            pointer = point
        } else {
            pointer = nil
        }
        if let field = try root.optional("selection"), !field.isNull {
            selection = Array(try field.integers().prefix(PresenceUpdate.maximumSelection))
        } else {
            selection = []
        }
    }
}

/// Someone else in the document, as every window is told: a name, a colour, and their latest
/// presence.
public struct PeerPresence: Equatable, Sendable {
    /// Stable for the life of their connection; `left` messages name it too.
    public var peer: String
    /// A user's name, or "Guest n".
    public var name: String
    /// A CSS colour, `#rrggbb`.
    public var colour: String
    public var update: PresenceUpdate

    public init(peer: String, name: String, colour: String, update: PresenceUpdate) {
        self.peer = peer
        self.name = name
        self.colour = colour
        self.update = update
    }

    /// The colours peers are given in turn: distinct on light and dark canvases alike.
    public static let colours = [
        "#e8467c", "#1e88e5", "#43a047", "#fb8c00", "#8e24aa", "#00897b", "#f4511e", "#5e35b1",
    ]
}

/// A message a window sends: a request (answered) or its presence (relayed).
public enum LiveInbound: Equatable, Sendable {
    case request(LiveRequest)
    case presence(PresenceUpdate)

    public init(json bytes: [UInt8]) throws {
        let root = JSONField(try JSONParser.parse(bytes))
        if let type = try root.optional("type"), try type.string() == "presence" {
            self = .presence(try PresenceUpdate(root: root))
        } else {
            self = .request(try LiveRequest(root: root))
        }
    }
}
