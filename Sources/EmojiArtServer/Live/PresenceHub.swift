import EmojiArtWire
import Foundation

/// Who else is in each open document, for the live connections on this server: every window's
/// name, colour, pointer and selection, relayed to the other windows of the same document as it
/// changes — each update encoded once for them all — and a `left` message when a window goes.
/// Nothing here reaches the document, its log or the store. (Windows on other servers of a shared
/// database are not seen: presence is per server.)
actor PresenceHub {
    /// At most this many updates a second from one window are relayed: one that comes sooner
    /// waits, and is replaced by any newer one meanwhile, so the latest always arrives.
    static let updatesPerSecond = 20
    static var interval: Duration { .milliseconds(1000 / updatesPerSecond) }

    fileprivate struct Peer {
        var presence: PeerPresence
        var deliver: @Sendable (String) -> Void
        var lastRelayed: ContinuousClock.Instant?
        /// An update that came too soon, relayed when the interval is up.
        var waiting: PresenceUpdate?
    }

    fileprivate struct Room {
        var peers: [String: Peer] = [:]
        /// Guests are numbered per document, in the order they arrive, never reused.
        var guests = 0
        var joined = 0
    }

    private var rooms: [UUID: Room] = [:]
    private var nextPeer = 0

    /// Adds a window to `document`'s room: `name` for a user, nil for a guest. Returns its peer
    /// id; the others' presences are delivered to it at once.
    ///
    /// Rooms are changed in place (never copied out and back), so a window joining, updating or
    /// leaving a room of a thousand costs no copy of the room.
    func join(document: UUID, name: String?, deliver: @escaping @Sendable (String) -> Void) -> String {
        nextPeer += 1
        return rooms[document, default: Room()].join(peer: "p\(nextPeer)", name: name, deliver: deliver)
    }

    /// A window's new presence, relayed to the others — at once, or when its interval is up.
    func update(document: UUID, peer: String, _ update: PresenceUpdate, at now: ContinuousClock.Instant = .now) {
        guard let entry = rooms[document]?.peers[peer] else { return }
        if let last = entry.lastRelayed, now - last < Self.interval {
            let scheduled = entry.waiting != nil
            rooms[document]?.peers[peer]?.waiting = update
            if !scheduled {
                let delay = Self.interval - (now - last)
                Task {
                    try? await Task.sleep(for: delay)
                    await self.relayWaiting(document: document, peer: peer)
                }
            }
            return
        }
        relay(update, from: peer, in: document, at: now)
    }

    private func relayWaiting(document: UUID, peer: String) {
        guard let update = rooms[document]?.peers[peer]?.waiting else { return }
        relay(update, from: peer, in: document, at: .now)
    }

    private func relay(_ update: PresenceUpdate, from peer: String, in document: UUID, at now: ContinuousClock.Instant)
    {
        guard let presence = rooms[document]?.relayed(update, from: peer, at: now), let room = rooms[document] else {
            return
        }
        let text = LiveMessages.presence(presence)
        for (id, other) in room.peers where id != peer { other.deliver(text) }
    }

    /// The window has gone: its presence is forgotten, and the others are told — if they ever
    /// heard of it (a window that never showed a pointer or a selection was never announced), so
    /// a thousand silent windows closing at once cost no million messages.
    func leave(document: UUID, peer: String) {
        guard let gone = rooms[document]?.peers.removeValue(forKey: peer), let room = rooms[document] else { return }
        if room.peers.isEmpty {
            rooms[document] = nil
            return
        }
        guard gone.lastRelayed != nil else { return }
        let text = LiveMessages.presenceLeft(peer: peer)
        for other in room.peers.values { other.deliver(text) }
    }

    /// How many windows are present in `document` (for tests).
    func count(in document: UUID) -> Int { rooms[document]?.peers.count ?? 0 }
}

extension PresenceHub.Room {
    /// Adds a peer: `name` for a user, nil for a guest. The others' presences are delivered to
    /// it at once.
    fileprivate mutating func join(
        peer: String, name: String?, deliver: @escaping @Sendable (String) -> Void
    ) -> String {
        let shownName: String
        if let name {
            shownName = name
        } else {
            guests += 1
            shownName = "Guest \(guests)"
        }
        let colour = PeerPresence.colours[joined % PeerPresence.colours.count]
        joined += 1
        for other in peers.values
        where other.presence.update.pointer != nil || !other.presence.update.selection.isEmpty {
            deliver(LiveMessages.presence(other.presence))
        }
        peers[peer] = PresenceHub.Peer(
            presence: PeerPresence(
                peer: peer, name: shownName, colour: colour, update: PresenceUpdate(pointer: nil, selection: [])),
            deliver: deliver, lastRelayed: nil)
        return peer
    }

    /// Records a peer's relayed update; nil if the peer isn't here.
    fileprivate mutating func relayed(
        _ update: PresenceUpdate, from peer: String, at now: ContinuousClock.Instant
    ) -> PeerPresence? {
        guard peers[peer] != nil else { return nil }
        peers[peer]?.lastRelayed = now
        peers[peer]?.waiting = nil
        peers[peer]?.presence.update = update
        return peers[peer]?.presence
    }
}
