import EmojiArtWire
import Foundation

/// What one server tells the others sharing its database about who is present in one document
/// (``PresenceHub``), since the last time it told them: the latest presence of each of its
/// windows that changed, the ones that left, calls to follow, and a request for everyone's
/// presence when it opens a room. A batch with no document says only that the server is alive.
///
/// As text, so it travels in PostgreSQL's `NOTIFY`: a header line, `emojiart-presence 1 <server>
/// <document | ->`, then one line a signal: `P <presence message>`, `L <peer>`, `S <summon
/// message>`, `H`, `R <peer> <peer> …`. The messages are the JSON windows are sent, which holds no raw newline. A
/// batch too big for one payload is split into several, each with the header.
struct PresenceBatch: Equatable, Sendable {
    enum Signal: Equatable, Sendable {
        /// A window's latest presence (or that it joined).
        case presence(PeerPresence)
        case left(peer: String)
        /// "Bring everyone here".
        case summon(peer: String, name: String, colour: String)
        /// "Tell me who is here": a server that just opened the room, or listens again after a gap.
        case hello
        /// Every window the sending server has in the room, by the number after its peer id's
        /// `<server>-`: the others forget any they know of from it that isn't listed (a `left`
        /// lost on the way). Left out when too many for one payload.
        case roster([Int])
    }

    /// The sending server's tag (``PresenceHub/server``): it ignores its own batches.
    var server: String
    /// nil for a server's heartbeat.
    var document: UUID?
    var signals: [Signal]

    private static let magic = "emojiart-presence 1"

    /// The batch as payloads of at most `limit` UTF-8 bytes, in order. A presence whose selection
    /// alone is too big for one loses the end of its selection (the others still see the pointer).
    func payloads(limit: Int) -> [String] {
        let header = "\(Self.magic) \(server) \(document?.uuidString ?? "-")"
        var payloads: [String] = []
        var current = header
        var currentBytes = header.utf8.count
        if signals.isEmpty { return [header] }
        for signal in signals {
            guard let line = Self.line(for: signal, fitting: limit - header.utf8.count - 1) else { continue }
            let bytes = line.utf8.count + 1
            if currentBytes + bytes > limit, current != header {
                payloads.append(current)
                current = header
                currentBytes = header.utf8.count
            }
            current += "\n" + line
            currentBytes += bytes
        }
        payloads.append(current)
        return payloads
    }

    private static func line(for signal: Signal, fitting room: Int) -> String? {
        switch signal {
        case .presence(var presence):
            var line = "P " + LiveMessages.presence(presence)
            while line.utf8.count > room, !presence.update.selection.isEmpty {
                presence.update.selection.removeLast((presence.update.selection.count + 1) / 2)
                line = "P " + LiveMessages.presence(presence)
            }
            return line
        case .left(let peer): return "L " + peer
        case .summon(let peer, let name, let colour):
            return "S " + LiveMessages.summon(peer: peer, name: name, colour: colour)
        case .hello: return "H"
        case .roster(let peers):
            let line = (["R"] + peers.map(String.init)).joined(separator: " ")
            return line.utf8.count <= room ? line : nil
        }
    }

    /// Reads a payload; nil if it isn't one (another program's on the same channel, a newer
    /// format) — it is ignored.
    init?(payload: String) {
        var lines = payload.split(separator: "\n", omittingEmptySubsequences: false)[...]
        guard let header = lines.popFirst(), header.hasPrefix(Self.magic + " ") else { return nil }
        let words = header.dropFirst(Self.magic.count + 1).split(separator: " ")
        guard words.count == 2, !words[0].isEmpty else { return nil }
        server = String(words[0])
        if words[1] == "-" {
            document = nil
        } else {
            guard let id = UUID(uuidString: String(words[1])) else { return nil }
            document = id
        }
        var signals: [Signal] = []
        for line in lines {
            let rest = line.dropFirst(2)
            switch line.first {
            case "P":
                guard let presence = try? PeerPresence(json: Array(rest.utf8)) else { return nil }
                signals.append(.presence(presence))
            case "L":
                signals.append(.left(peer: String(rest)))
            case "S":
                // Its peer, name and colour read as a presence's (with nothing else).
                guard let summon = try? PeerPresence(json: Array(rest.utf8)) else { return nil }
                signals.append(.summon(peer: summon.peer, name: summon.name, colour: summon.colour))
            case "H":
                signals.append(.hello)
            case "R":
                var numbers: [Int] = []
                for word in rest.split(separator: " ") {
                    guard let number = Int(word) else { return nil }
                    numbers.append(number)
                }
                signals.append(.roster(numbers))
            default:
                return nil
            }
        }
        self.signals = signals
    }

    init(server: String, document: UUID?, signals: [Signal]) {
        self.server = server
        self.document = document
        self.signals = signals
    }
}
