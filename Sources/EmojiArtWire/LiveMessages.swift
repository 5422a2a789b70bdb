import EmojiArtGame
import EmojiArtKit
import EmojiArtLive
import Foundation

/// The server's live messages as JSON text (docs/API.md, "Live documents", "Palettes", "Find or
/// Lose"), written with the core's ``JSONWriter`` in the same shapes as the REST bodies.
public enum LiveMessages {
    public static func snapshot(_ state: LiveDocumentState) -> String {
        String(decoding: snapshotBytes(state), as: UTF8.self)
    }

    /// ``snapshot(_:)`` as UTF-8 bytes, for a frame shared by many windows.
    public static func snapshotBytes(_ state: LiveDocumentState) -> [UInt8] {
        var writer = JSONWriter(reservingCapacity: 256 + 80 * state.document.emojis.count)
        writer.raw("{")
        writer.key("type")
        writer.string("snapshot")
        writer.raw(",")
        writer.key("state")
        DocumentStateBody(state).write(into: &writer)
        writer.raw("}")
        return writer.bytes
    }

    public static func synced(_ state: LiveDocumentState) -> String {
        message("synced") { writer in
            writer.key("version")
            writer.integer(state.version)
            writer.raw(",")
            writeActionNames(undo: state.undoActionName, redo: state.redoActionName, into: &writer)
            writer.raw(",")
            writer.key("backgroundState")
            DocumentStateBody.write(state.backgroundState, into: &writer)
        }
    }

    /// `{"type": "access", "role"}`: what this window may do (`owner`, `editor`, `commenter` or
    /// `viewer`), sent first on every connection, so the editor knows it before it draws and
    /// needn't ask over HTTP (which would fetch the whole document a second time).
    public static func access(role: String) -> String {
        message("access") { writer in
            writer.key("role")
            writer.string(role)
        }
    }

    public static func change(_ change: LiveChange) -> String {
        message("change") { writer in
            writer.key("version")
            writer.integer(change.version)
            writer.raw(",")
            writeActionNames(undo: change.undoActionName, redo: change.redoActionName, into: &writer)
            writer.raw(",")
            writer.key("updatedAt")
            writer.string(change.updatedAt.apiString)
            writer.raw(",")
            writer.key("patch")
            write(change.patch, into: &writer)
        }
    }

    public static func background(_ state: BackgroundState) -> String {
        message("background") { writer in
            writer.key("backgroundState")
            DocumentStateBody.write(state, into: &writer)
        }
    }

    public static func reply(_ reply: LiveReply) -> String {
        switch reply {
        case .acknowledged(let requestID, let version):
            message("ack") { writer in
                writer.key("requestId")
                writer.string(requestID)
                writer.raw(",")
                writer.key("version")
                writer.integer(version)
            }
        case .refused(let requestID, let code, let text, let currentVersion):
            message("refused") { writer in
                writer.key("requestId")
                writer.string(requestID)
                writer.raw(",")
                writer.key("code")
                writer.string(code)
                writer.raw(",")
                writer.key("message")
                writer.string(text)
                if let currentVersion {
                    writer.raw(",")
                    writer.key("currentVersion")
                    writer.integer(currentVersion)
                }
            }
        }
    }

    /// `{"type": "deleted"}`: the document is gone; the connection closes next.
    public static let deleted = #"{"type":"deleted"}"#

    /// `{"type": "comments"}`: the document's comment threads changed (on any server); the window
    /// fetches them again (`GET /api/documents/{id}/comments`), which says what it may see.
    public static let comments = #"{"type":"comments"}"#

    /// `{"type": "palettes", "version", "palettes": [{"id", "name", "emojis"}]}`: every palette,
    /// in order.
    public static func palettes(_ snapshot: PaletteSnapshot) -> String {
        message("palettes") { writer in
            writer.key("version")
            writer.integer(snapshot.version)
            writer.raw(",")
            writer.key("palettes")
            writer.raw("[")
            for (index, palette) in snapshot.palettes.enumerated() {
                if index > 0 { writer.raw(",") }
                writer.raw("{")
                writer.key("id")
                writer.string(palette.id.uuidString)
                writer.raw(",")
                writer.key("name")
                writer.string(palette.name)
                writer.raw(",")
                writer.key("emojis")
                writer.string(palette.emojis)
                writer.raw("}")
            }
            writer.raw("]")
        }
    }

    /// `{"type": "state", "phase", "title", "level", "score", "tiles": [{"emoji"} | {"image"}],
    /// "message", "error", "source": {"name", "remainingCalls", "callLimit"}}`: a Find or Lose
    /// game as its window draws it.
    public static func game(_ snapshot: GameSnapshot) -> String {
        struct Tile: Encodable {
            var emoji: String?
            var image: String?
        }
        struct Source: Encodable {
            var name: String
            var remainingCalls: Int?
            var callLimit: Int?
        }
        struct State: Encodable {
            var type = "state"
            var phase: String
            var title: String
            var level: Int
            var score: Int
            var tiles: [Tile]
            var message: String?
            var error: String?
            var source: Source
        }
        let state = State(
            phase: snapshot.phase, title: snapshot.title, level: snapshot.level, score: snapshot.score,
            tiles: snapshot.tiles.map { tile in
                switch tile {
                case .emoji(let emoji): Tile(emoji: emoji)
                case .stored(let id): Tile(image: "/api/images/\(id)")
                }
            },
            message: snapshot.message, error: snapshot.errorCode,
            source: Source(
                name: snapshot.source.name, remainingCalls: snapshot.source.remainingCalls,
                callLimit: snapshot.source.callLimit))
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return String(decoding: (try? encoder.encode(state)) ?? Data("{}".utf8), as: UTF8.self)
    }

    /// `{"title"?, "background"?, "removed": [id], "inserted": [{"index", "emoji"}],
    /// "updated": [emoji], "nextEmojiId"}`
    public static func write(_ patch: DocumentPatch, into writer: inout JSONWriter) {
        writer.raw("{")
        if let title = patch.title {
            writer.key("title")
            writer.string(title)
            writer.raw(",")
        }
        if let background = patch.background {
            writer.key("background")
            DocumentStateBody.write(DocumentStateBody.BackgroundBody(background), into: &writer)
            writer.raw(",")
        }
        writer.key("removed")
        writer.raw("[")
        for (index, id) in patch.removedIDs.enumerated() {
            if index > 0 { writer.raw(",") }
            writer.integer(id)
        }
        writer.raw("],")
        writer.key("inserted")
        writer.raw("[")
        for (index, placed) in patch.inserted.enumerated() {
            if index > 0 { writer.raw(",") }
            writer.raw("{")
            writer.key("index")
            writer.integer(placed.index)
            writer.raw(",")
            writer.key("emoji")
            DocumentStateBody.write(DocumentStateBody.EmojiBody(placed.emoji), into: &writer)
            writer.raw("}")
        }
        writer.raw("],")
        writer.key("updated")
        writer.raw("[")
        for (index, emoji) in patch.updated.enumerated() {
            if index > 0 { writer.raw(",") }
            DocumentStateBody.write(DocumentStateBody.EmojiBody(emoji), into: &writer)
        }
        writer.raw("],")
        writer.key("moved")
        writer.raw("[")
        for (index, group) in patch.moved.enumerated() {
            if index > 0 { writer.raw(",") }
            writer.raw("{")
            writer.key("idRanges")
            writer.idRanges(IDRanges.runs(of: group.ids) ?? group.ids.map { $0...$0 })
            writer.raw(",")
            writer.key("offset")
            writer.point(group.offset)
            writer.raw("}")
        }
        writer.raw("],")
        writer.key("nextEmojiId")
        writer.integer(patch.nextEmojiID)
        writer.raw("}")
    }

    private static func writeActionNames(undo: String?, redo: String?, into writer: inout JSONWriter) {
        writer.key("undoActionName")
        writer.optionalString(undo)
        writer.raw(",")
        writer.key("redoActionName")
        writer.optionalString(redo)
    }

    private static func message(_ type: String, _ body: (inout JSONWriter) -> Void) -> String {
        var writer = JSONWriter(reservingCapacity: 256)
        writer.raw("{")
        writer.key("type")
        writer.string(type)
        writer.raw(",")
        body(&writer)
        writer.raw("}")
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    /// `{"type": "presence", "peer", "name", "colour", "pointer": {"x", "y"} | null, "selection": [ids],
    /// "view"?: {"x", "y", "width", "height"}, "following"?: peer}`.
    public static func presence(_ presence: PeerPresence) -> String {
        var writer = JSONWriter(reservingCapacity: 128 + 8 * presence.update.selection.count)
        writer.raw("{")
        writer.key("type")
        writer.string("presence")
        writer.raw(",")
        writer.peerIdentity(peer: presence.peer, name: presence.name, colour: presence.colour)
        writer.raw(",")
        writer.key("pointer")
        if let pointer = presence.update.pointer { writer.point(pointer) } else { writer.raw("null") }
        writer.raw(",")
        writer.key("selection")
        writer.integers(presence.update.selection)
        if let view = presence.update.view {
            writer.raw(",")
            writer.key("view")
            writer.raw("{")
            writer.key("x")
            writer.double(view.x)
            writer.raw(",")
            writer.key("y")
            writer.double(view.y)
            writer.raw(",")
            writer.key("width")
            writer.double(view.width)
            writer.raw(",")
            writer.key("height")
            writer.double(view.height)
            writer.raw("}")
        }
        if let following = presence.update.following {
            writer.raw(",")
            writer.key("following")
            writer.string(following)
        }
        writer.raw("}")
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    /// `{"type": "presence", "peer", "name", "colour", "you": true}`: how the others see this
    /// window, told to it once when it joins.
    public static func presenceYou(peer: String, name: String, colour: String) -> String {
        message("presence") { writer in
            writer.peerIdentity(peer: peer, name: name, colour: colour)
            writer.raw(",")
            writer.key("you")
            writer.raw("true")
        }
    }

    /// `{"type": "summon", "peer", "name", "colour"}`: that window asks everyone to follow it
    /// ("Bring everyone here").
    public static func summon(peer: String, name: String, colour: String) -> String {
        message("summon") { writer in writer.peerIdentity(peer: peer, name: name, colour: colour) }
    }

    /// `{"type": "presence", "peer", "left": true}`: that window has gone.
    public static func presenceLeft(peer: String) -> String {
        var writer = JSONWriter(reservingCapacity: 64)
        writer.raw("{")
        writer.key("type")
        writer.string("presence")
        writer.raw(",")
        writer.key("peer")
        writer.string(peer)
        writer.raw(",")
        writer.key("left")
        writer.raw("true}")
        return String(decoding: writer.bytes, as: UTF8.self)
    }
}

extension JSONWriter {
    /// `"peer", "name", "colour"`: who a presence or a summon is from.
    fileprivate mutating func peerIdentity(peer: String, name: String, colour: String) {
        key("peer")
        string(peer)
        raw(",")
        key("name")
        string(name)
        raw(",")
        key("colour")
        string(colour)
    }
}
