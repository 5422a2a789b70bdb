import EmojiArtKit

/// Where a window's pointer is, what it has selected and what part of the picture it shows, as
/// it tells the others following the same document (docs/API.md, "Presence"):
/// `{"type": "presence", "pointer": {"x", "y"} | null, "selection": [ids], "view"?: {"x", "y",
/// "width", "height"}}`. Presence is relayed, never applied: it touches neither the log nor the
/// store, and a window that leaves takes its presence with it.
public struct PresenceUpdate: Equatable, Sendable {
    /// The pointer in document points (y up), or nil when it is off the canvas.
    public var pointer: Point?
    /// The selected emoji ids (at most ``maximumSelection``; more are dropped).
    public var selection: [Int]
    /// What the window shows, so others can follow it; nil if it never said.
    public var view: ViewArea?
    /// The peer whose view this window follows, if any (so no one follows their own follower).
    public var following: String?

    public static let maximumSelection = 1_000
    /// Peer ids are short (``PresenceHub``'s `<server>-<n>`).
    public static let maximumPeerLength = 64

    public init(pointer: Point?, selection: [Int], view: ViewArea? = nil, following: String? = nil) {
        self.pointer = pointer
        self.selection = selection
        self.view = view
        self.following = following
    }

    /// Reads the message's fields (its `type` has been read: "presence").
    package init(root: JSONField) throws {
        let root = root.resolved()
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
        if let field = try root.optional("view"), !field.isNull {
            view = try ViewArea(field)
        } else {
            view = nil
        }
        if let field = try root.optional("following"), !field.isNull {
            let peer = try field.string()
            guard (1...PresenceUpdate.maximumPeerLength).contains(peer.utf8.count),
                peer.unicodeScalars.allSatisfy({
                    $0.isASCII && $0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-"
                })
            else { throw field.failure("a peer id is up to 64 letters, digits and dashes.") }
            following = peer
        } else {
            following = nil
        }
    }
}

/// The part of the picture a window shows: its middle (document points, y up) and its size in
/// document points. A window following another fits this area into its own.
public struct ViewArea: Equatable, Sendable {
    public var x: Double
    public var y: Double
    public var width: Double
    public var height: Double

    public init(x: Double, y: Double, width: Double, height: Double) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    /// Far enough to see the whole canvas from well outside it; no further.
    static let reach = 4 * Double(DocumentLimits.coordinateRange.upperBound)

    package init(_ field: JSONField) throws {
        let view = field.resolved()
        x = try view.required("x").double()
        y = try view.required("y").double()
        width = try view.required("width").double()
        height = try view.required("height").double()
        guard abs(x) <= Self.reach, abs(y) <= Self.reach else {
            throw field.failure("the view is far outside the canvas.")
        }
        guard width > 0, height > 0, width <= Self.reach, height <= Self.reach else {
            throw field.failure("a view's width and height are positive, and at most \(Int(Self.reach)) points.")
        }
    }
}

/// Someone else in the document, as every window is told: a name, a colour, and their latest
/// presence.
public struct PeerPresence: Equatable, Sendable {
    /// Stable for the life of their connection, and unique among all the servers of a shared
    /// database; `left` messages name it too.
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

    /// Reads a `presence` message as ``LiveMessages/presence(_:)`` writes it (between servers).
    package init(json bytes: [UInt8]) throws {
        let root = JSONField(try JSONParser.parse(bytes)).resolved()
        peer = try root.required("peer").string()
        name = try root.required("name").string()
        colour = try root.required("colour").string()
        update = try PresenceUpdate(root: root)
    }

    /// The colours peers are given in turn: distinct on light and dark canvases alike.
    public static let colours = [
        "#e8467c", "#1e88e5", "#43a047", "#fb8c00", "#8e24aa", "#00897b", "#f4511e", "#5e35b1",
    ]
}

/// A message a window sends: a request (answered), its presence (relayed), or — from an editor
/// or owner — a call for every other window to follow it (relayed).
public enum LiveInbound: Equatable, Sendable {
    case request(LiveRequest)
    case presence(PresenceUpdate)
    /// `{"type": "summon"}`: "Bring everyone here".
    case summon

    public init(json bytes: [UInt8]) throws {
        let root = JSONField(try JSONParser.parse(bytes)).resolved()
        switch try root.optional("type").map({ try $0.string() }) {
        case "presence": self = .presence(try PresenceUpdate(root: root))
        case "summon": self = .summon
        default: self = .request(try LiveRequest(root: root))
        }
    }
}
