import EmojiArtStore
import EmojiArtWire
import Foundation

/// Who is in each open document: every window's name, colour, pointer, selection and view,
/// relayed to the other windows of the same document as it changes — each update encoded once
/// for them all — and a `left` message when a window goes. Nothing here reaches the document,
/// its log or the store.
///
/// On a database other servers share (``InstanceBroadcast``: PostgreSQL's `NOTIFY`), what this
/// server's windows show is told to the other servers too, batched per document
/// (``PresenceBatch``), and what theirs show reaches the windows here, so a room is the same
/// whichever server each window is on. A server says it is alive every
/// ``heartbeatInterval``; the windows of one not heard from for ``silenceAllowed`` (killed,
/// cut off) are taken to have left, and are asked for again if it is heard from after all.
actor PresenceHub {
    /// At most this many updates a second from one window are relayed: one that comes sooner
    /// waits, and is replaced by any newer one meanwhile, so the latest always arrives.
    static let updatesPerSecond = 20
    static var interval: Duration { .milliseconds(1000 / updatesPerSecond) }
    /// In a room of up to this many windows everyone who joins is announced (the row of people
    /// shows them all); in a bigger one, only those who show a pointer, selection or view — so a
    /// thousand silent windows joining or leaving cost no million messages.
    static let announcedRoomSize = 100
    /// One "bring everyone here" per window in this long; more are dropped.
    static let summonInterval = Duration.seconds(2)
    static let heartbeatInterval = Duration.seconds(5)
    static let silenceAllowed = Duration.seconds(15)

    fileprivate struct Peer {
        var presence: PeerPresence
        var deliver: @Sendable (String) -> Void
        var lastRelayed: ContinuousClock.Instant?
        /// An update that came too soon, relayed when the interval is up.
        var waiting: PresenceUpdate?
        /// Whether the others were told of it (so are told when it leaves).
        var announced = false
        var lastSummoned: ContinuousClock.Instant?
    }

    /// A window on another server, as that server last described it.
    fileprivate struct RemotePeer {
        var server: String
        var presence: PeerPresence
    }

    fileprivate struct Room {
        var peers: [String: Peer] = [:]
        var remote: [String: RemotePeer] = [:]
        /// Guests are numbered per document, in the order they arrive, never reused (the
        /// highest number heard from other servers counts too).
        var guests = 0
        var joined = 0

        /// No window here, nor any heard of elsewhere: the room is dropped.
        var isEmpty: Bool { peers.isEmpty && remote.isEmpty }
    }

    /// This server's tag: the start of every peer id it gives, so ids are unique among servers.
    nonisolated let server: String
    private let broadcasts: (any InstanceBroadcast)?
    private var rooms: [UUID: Room] = [:]
    private var nextPeer = 0

    /// What is still to be told to the other servers, per document, in order; a window's newer
    /// presence replaces its older one in place.
    private var outbox: [UUID: Outgoing] = [:]
    private var heartbeatDue = false
    private var flushing = false
    private var serversHeard: [String: ContinuousClock.Instant] = [:]
    /// Servers taken to have left for their silence, and when (kept for ``forgottenKept``): one
    /// heard again was only cut off, and its windows, dropped here, are asked for again.
    private var serversForgotten: [String: ContinuousClock.Instant] = [:]
    static let forgottenKept = Duration.seconds(3600)
    /// The documents the other servers may think this one has windows in.
    private var told: Set<UUID> = []
    /// A send failed: what the others heard may be wrong, so every room told of is listed again.
    private var sendFailed = false

    private struct Outgoing {
        var signals: [PresenceBatch.Signal] = []
        var positions: [String: Int] = [:]

        /// Adds `signal`; a window's newer presence (or its leaving) takes its older one's place,
        /// and a room asks, and lists its windows, once a batch.
        mutating func add(_ signal: PresenceBatch.Signal) {
            let peer: String? =
                switch signal {
                case .presence(let presence): presence.peer
                case .left(let peer): peer
                case .hello: " hello"
                case .roster: " roster"
                case .summon: nil
                }
            if let peer, let position = positions[peer] {
                signals[position] = signal
            } else {
                if let peer { positions[peer] = signals.count }
                signals.append(signal)
            }
        }
    }

    /// - Parameter broadcasts: the other servers on a shared database; nil when there are none.
    init(server: String = PresenceHub.newServerTag(), broadcasts: (any InstanceBroadcast)? = nil) {
        self.server = server
        self.broadcasts = broadcasts
    }

    /// Eight hex digits, fresh each start.
    static func newServerTag() -> String {
        String(UUID().uuidString.lowercased().prefix(8))
    }

    // MARK: - This server's windows

    /// Hands `message` to every window of `document` on this server (the document's comments
    /// changed): a room is who has the document open here.
    func tell(document: UUID, _ message: String) {
        guard let peers = rooms[document]?.peers else { return }
        for peer in peers.values { peer.deliver(message) }
    }

    /// Adds a window to `document`'s room: `name` for a user, nil for a guest. Returns its peer
    /// id. It is told at once how the others see it (`you`) and who else is there.
    ///
    /// Rooms are changed in place (never copied out and back), so a window joining, updating or
    /// leaving a room of a thousand costs no copy of the room.
    func join(document: UUID, name: String?, deliver: @escaping @Sendable (String) -> Void) -> String {
        nextPeer += 1
        let peer = "\(server)-\(nextPeer)"
        let opened = rooms[document]?.peers.isEmpty ?? true
        let announced = rooms[document, default: Room()].join(peer: peer, name: name, deliver: deliver)
        if opened { tellServers(document, .hello) }
        if let announced { relayToOthers(announced, from: peer, in: document) }
        return peer
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
        guard let presence = rooms[document]?.relayed(update, from: peer, at: now) else { return }
        relayToOthers(presence, from: peer, in: document)
    }

    /// Tells everyone else in the room — here and on the other servers — `presence`.
    private func relayToOthers(_ presence: PeerPresence, from peer: String, in document: UUID) {
        guard let room = rooms[document] else { return }
        let text = LiveMessages.presence(presence)
        for (id, other) in room.peers where id != peer { other.deliver(text) }
        tellServers(document, .presence(presence))
    }

    /// "Bring everyone here": every other window in the room, on every server, is asked to follow
    /// `peer`. (Whether it may ask is the caller's to decide: editors and owners.) At most one
    /// a ``summonInterval`` per window.
    func summon(document: UUID, peer: String, at now: ContinuousClock.Instant = .now) {
        guard let entry = rooms[document]?.peers[peer] else { return }
        if let last = entry.lastSummoned, now - last < Self.summonInterval { return }
        rooms[document]?.peers[peer]?.lastSummoned = now
        let presence = entry.presence
        let text = LiveMessages.summon(peer: peer, name: presence.name, colour: presence.colour)
        for (id, other) in rooms[document]?.peers ?? [:] where id != peer { other.deliver(text) }
        tellServers(document, .summon(peer: peer, name: presence.name, colour: presence.colour))
    }

    /// The window has gone: its presence is forgotten, and the others are told — if they ever
    /// heard of it.
    func leave(document: UUID, peer: String) {
        guard let gone = rooms[document]?.peers.removeValue(forKey: peer), let room = rooms[document] else { return }
        if gone.announced {
            let text = LiveMessages.presenceLeft(peer: peer)
            for other in room.peers.values { other.deliver(text) }
            tellServers(document, .left(peer: peer))
        }
        if room.isEmpty { rooms[document] = nil }
    }

    /// How many windows are present in `document`, on this server and the others it heard of
    /// (for tests).
    func count(in document: UUID) -> Int { (rooms[document]?.peers.count ?? 0) + (rooms[document]?.remote.count ?? 0) }

    /// How many rooms are kept (for tests: none is kept once everyone in it has gone).
    var roomCount: Int { rooms.count }

    // MARK: - The other servers

    /// What another server told (``BroadcastService``): its windows' news reach the windows here
    /// in the same document. Who is where is kept for rooms no window here is in yet too, so the
    /// first to join one is told at once, and given a colour no one there wears. Our own batches
    /// are passed over.
    func receive(_ batch: PresenceBatch, at now: ContinuousClock.Instant = .now) {
        guard batch.server != server else { return }
        serversHeard[batch.server] = now
        if serversForgotten.removeValue(forKey: batch.server) != nil {
            // Back after a silence (a cut-off database connection, a stalled machine): its
            // windows were dropped here, and idle ones would stay unseen until they moved.
            reconnected()
        }
        guard let document = batch.document else { return }
        // A server speaks for its own windows only: ids it gave, colours of the palette.
        let own = batch.server + "-"
        for signal in batch.signals {
            switch signal {
            case .presence(let presence):
                guard presence.peer.hasPrefix(own), PeerPresence.colours.contains(presence.colour),
                    presence.name.count <= 200
                else { continue }
                rooms[document, default: Room()].heard(presence, from: batch.server)
                deliverToAll(LiveMessages.presence(presence), in: document)
            case .left(let peer):
                guard peer.hasPrefix(own) else { continue }
                forget([peer], in: document)
            case .summon(let peer, let name, let colour):
                guard peer.hasPrefix(own), rooms[document]?.remote[peer] != nil else { continue }
                deliverToAll(LiveMessages.summon(peer: peer, name: name, colour: colour), in: document)
            case .hello:
                guard rooms[document]?.peers.isEmpty == false else { continue }
                tellEverything(about: document)
            case .roster(let numbers):
                let listed = Set(numbers.map { own + String($0) })
                let gone = rooms[document]?.remote.filter {
                    $0.value.server == batch.server && !listed.contains($0.key)
                }
                forget(gone.map { Array($0.keys) } ?? [], in: document)
            }
        }
    }

    /// Every window here in `document`, for the other servers: the list of them, and the
    /// presence of each that was announced.
    private func tellEverything(about document: UUID) {
        guard let room = rooms[document] else {
            tellServers(document, .roster([]))
            return
        }
        tellServers(document, .roster(room.peers.keys.compactMap { Int($0.dropFirst(server.count + 1)) }.sorted()))
        for peer in room.peers.values where peer.announced { tellServers(document, .presence(peer.presence)) }
    }

    /// Windows of other servers gone from `document`: the windows here are told, and a room no
    /// one is left in is dropped.
    private func forget(_ peers: [String], in document: UUID) {
        for peer in peers where rooms[document]?.remote.removeValue(forKey: peer) != nil {
            deliverToAll(LiveMessages.presenceLeft(peer: peer), in: document)
        }
        if rooms[document]?.isEmpty == true { rooms[document] = nil }
    }

    /// Listening again after a gap, or hearing again from a server taken to have left: what the
    /// other servers' windows did meanwhile is unknown, so every room here asks again; the
    /// answers list each server's windows, and those not listed are taken to have left (those of
    /// a server that went silent leave on the next ``tick(at:)``s).
    func reconnected() {
        for (document, room) in rooms where !room.peers.isEmpty { tellServers(document, .hello) }
    }

    /// Every ``heartbeatInterval`` (``BroadcastService``): tells the others this server is alive,
    /// and takes the windows of servers not heard from for ``silenceAllowed`` to have left.
    func tick(at now: ContinuousClock.Instant = .now) {
        if broadcasts != nil {
            heartbeatDue = true
            startFlushing()
        }
        serversForgotten = serversForgotten.filter { now - $0.value < Self.forgottenKept }
        let silent = Set(serversHeard.filter { now - $0.value > Self.silenceAllowed }.keys)
        guard !silent.isEmpty else { return }
        for server in silent {
            serversHeard[server] = nil
            serversForgotten[server] = now
        }
        for document in Array(rooms.keys) {
            forget(
                rooms[document]?.remote.filter { silent.contains($0.value.server) }.keys.map { $0 } ?? [], in: document)
        }
    }

    private func deliverToAll(_ text: String, in document: UUID) {
        guard let room = rooms[document] else { return }
        for peer in room.peers.values { peer.deliver(text) }
    }

    /// Queues `signal` for the other servers, and sends what is queued unless a send is under
    /// way: while one is, what comes meanwhile gathers into the next, so a busy room costs one
    /// `NOTIFY` per document per round trip, not one per update.
    private func tellServers(_ document: UUID, _ signal: PresenceBatch.Signal) {
        guard broadcasts != nil else { return }
        outbox[document, default: Outgoing()].add(signal)
        if case .presence = signal { told.insert(document) }
        startFlushing()
    }

    private func startFlushing() {
        guard let broadcasts, !flushing else { return }
        flushing = true
        Task { await self.flush(to: broadcasts) }
    }

    private func flush(to broadcasts: any InstanceBroadcast) async {
        while !outbox.isEmpty || heartbeatDue {
            if sendFailed {
                // Something may not have arrived (a `left`, a join): every room told of is
                // listed again, so the others drop what is gone and learn what is here.
                sendFailed = false
                for document in told { tellEverything(about: document) }
                told = told.filter { rooms[$0]?.peers.isEmpty == false }
            }
            var batches = outbox.map { PresenceBatch(server: server, document: $0.key, signals: $0.value.signals) }
            if heartbeatDue { batches.append(PresenceBatch(server: server, document: nil, signals: [])) }
            outbox = [:]
            heartbeatDue = false
            let payloads = batches.flatMap { $0.payloads(limit: broadcasts.maximumPayload) }
            // Presence that can't be told now is out of date by the next try: not sent again as
            // it was, but every room is listed again with the next send (the heartbeat's, at
            // the latest).
            do {
                try await broadcasts.broadcast(payloads)
            } catch {
                sendFailed = true
            }
        }
        flushing = false
    }
}

extension PresenceHub.Room {
    /// Adds a peer: `name` for a user, nil for a guest. It is told how the others see it and
    /// who is here. Returns its presence if the others are to be told it joined.
    fileprivate mutating func join(
        peer: String, name: String?, deliver: @escaping @Sendable (String) -> Void
    ) -> PeerPresence? {
        let shownName: String
        if let name {
            shownName = name
        } else {
            guests += 1
            shownName = "Guest \(guests)"
        }
        let colour = nextColour()
        joined += 1
        deliver(LiveMessages.presenceYou(peer: peer, name: shownName, colour: colour))
        for other in peers.values where other.announced { deliver(LiveMessages.presence(other.presence)) }
        for other in remote.values { deliver(LiveMessages.presence(other.presence)) }
        let presence = PeerPresence(
            peer: peer, name: shownName, colour: colour, update: PresenceUpdate(pointer: nil, selection: []))
        let announced = peers.count + remote.count < PresenceHub.announcedRoomSize
        peers[peer] = PresenceHub.Peer(presence: presence, deliver: deliver, announced: announced)
        return announced ? presence : nil
    }

    /// The colour fewest in the room wear, the next in turn first among equals: distinct while
    /// there are colours enough, whichever servers the windows are on.
    private func nextColour() -> String {
        let colours = PeerPresence.colours
        var worn = [String: Int]()
        for peer in peers.values { worn[peer.presence.colour, default: 0] += 1 }
        for peer in remote.values { worn[peer.presence.colour, default: 0] += 1 }
        let start = joined % colours.count
        let turn = (0..<colours.count).map { colours[(start + $0) % colours.count] }
        return turn.min { worn[$0, default: 0] < worn[$1, default: 0] } ?? colours[0]
    }

    /// Records a peer's relayed update; nil if the peer isn't here.
    fileprivate mutating func relayed(
        _ update: PresenceUpdate, from peer: String, at now: ContinuousClock.Instant
    ) -> PeerPresence? {
        guard peers[peer] != nil else { return nil }
        peers[peer]?.lastRelayed = now
        peers[peer]?.waiting = nil
        peers[peer]?.announced = true
        peers[peer]?.presence.update = update
        return peers[peer]?.presence
    }

    /// Records a window on another server; a guest's number there counts for the next here.
    fileprivate mutating func heard(_ presence: PeerPresence, from server: String) {
        remote[presence.peer] = PresenceHub.RemotePeer(server: server, presence: presence)
        if presence.name.hasPrefix("Guest "), let number = Int(presence.name.dropFirst(6)), number < 1_000_000 {
            guests = max(guests, number)
        }
    }
}
