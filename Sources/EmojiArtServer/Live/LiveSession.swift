import EmojiArtKit
import EmojiArtLive
import EmojiArtStore
import EmojiArtWire
import Foundation
import NIOCore
import NIOWebSocket
import Synchronization

/// Who asked to follow which document, found out before the upgrade (the live router's
/// middleware and route) and carried to the connection.
struct LiveStart: Sendable {
    var document: UUID
    /// The version the window has, when it reconnects.
    var version: Int?
    var access: RequestAccess
    /// The client's, as ``ClientAddress`` counts it.
    var address: String
}

/// One window following one document (``LiveChannel``): the connection's logic between its
/// ``LiveSocket`` and the document, with no task while it is idle.
///
/// A task runs only while there is something to do: one opens the connection (who may follow,
/// the document, the snapshot), then one at a time applies the window's messages in order and
/// ends when none is left; the socket is not read meanwhile. Everything the window is sent goes
/// through its ``LiveWriter``. Once the socket has closed and no task is left, what the
/// connection held is let go (``finish()``).
final class LiveSession: LiveSocketSession, Sendable {
    private struct Opened: Sendable {
        var document: LiveDocument
        var following: LiveFollowing
        var role: DocumentRole
    }

    private struct State: Sendable {
        /// The socket's state, the task's and the messages waiting: ``LiveInbox``.
        var inbox = LiveInbox()
        var registration: UUID?
        /// The revocation count read before the grant was last checked (``RevocationWatch``).
        var checkedRevocations: Int?
        var opened: Opened?
        var peer: String?
        /// The window's own message limit (``LiveChannel/Limits``): what it may still send now.
        var rate: TokenBucket
    }

    private let channel: LiveChannel
    private let start: LiveStart
    let socket: LiveSocket.Handle
    let writer: LiveWriter
    private let rates: SenderRates
    private let finished: @Sendable () -> Void
    private let state: Mutex<State>
    private let clock = MonotonicSeconds()

    init(
        channel: LiveChannel, start: LiveStart, socket: LiveSocket.Handle, writer: LiveWriter, rates: SenderRates,
        finished: @escaping @Sendable () -> Void
    ) {
        self.channel = channel
        self.start = start
        self.socket = socket
        self.writer = writer
        self.rates = rates
        self.finished = finished
        state = Mutex(State(rate: TokenBucket(channel.limits.messages, now: clock.now)))
    }

    func withInbox<Result: Sendable>(_ body: (inout LiveInbox) -> Result) -> Result {
        state.withLock { body(&$0.inbox) }
    }

    // MARK: - Opening

    /// Who is asking, and may they? Only then is the document opened, and the window sent it.
    func opening() async {
        let id = start.document
        let grant: DocumentAccess.Grant
        do {
            // Read before the grant is checked: a revocation after this read shows as a new count.
            if canBeRevoked {
                let revocations = try await channel.revocations.current()
                state.withLock { $0.checkedRevocations = revocations }
            }
            guard let found = try await channel.access.grant(start.access, on: id) else {
                let (code, reason) =
                    start.access.isSomeone
                    ? (LiveCloseCode.noDocument, "There is no such document.")
                    : (LiveCloseCode.unauthorized, "Sign in, or open a share link.")
                return close(code, reason: reason)
            }
            grant = found
        } catch {
            return close(failing: error)
        }
        // A revoked link, a changed role, an ended session end the connection with 4403 and the
        // reason, after what was queued before it.
        // Its presence goes at once too, on every server, not once the socket has closed.
        let writer = writer
        let registration = await channel.grants.register(document: id, access: start.access, grant: grant) {
            [weak self] reason in
            writer.end(.accessRevoked, reason: reason)
            self?.leaveRoom()
        }
        state.withLock { $0.registration = registration }
        // The connection holds the copy it follows, and sends its requests straight to it. The
        // document hands its events straight to the writer; a window that stops reading is
        // dropped: the document forgets it at once, and the connection closes with 4408.
        let document: LiveDocument
        let following: LiveFollowing
        do {
            guard
                let found = try await channel.library.withDocument(
                    id,
                    { document in
                        let following = try await document.follow(
                            since: start.version, receive: { writer.deliver(.event($0)) },
                            ended: { _ = writer.deliver(.eventsEnded) })
                        return (document, following)
                    })
            else { return close(.noDocument, reason: "There is no such document.") }
            (document, following) = found
        } catch {
            return close(failing: error)
        }
        state.withLock { $0.opened = Opened(document: document, following: following, role: grant.role) }
        let access = LiveMessages.access(role: grant.role.rawValue)
        if let missed = following.missed {
            let texts = missed.map { change in change.encoded.value { LiveMessages.change(change) } }
            writer.start(
                sentVersion: following.state.version,
                opening: .messages(texts + [LiveMessages.synced(following.state)]), first: [access])
        } else {
            writer.start(
                sentVersion: following.state.version,
                opening: .snapshot(await channel.snapshots.frame(for: following.state)), first: [access])
        }
        // Present from now on: the others' pointers and selections arrive, and ours reach them.
        let peer = await channel.presence.join(document: id, name: start.access.requester.user?.name) {
            _ = writer.deliver(.presence($0))
        }
        state.withLock { $0.peer = peer }
        // Revoked while joining: it leaves at once.
        if writer.isEnding { leaveRoom() }
    }

    // MARK: - The window's messages

    /// Applies the messages that came, in order, until none is left; then the socket is read
    /// again, or, if it closed meanwhile, the connection finishes.
    func work() async {
        while true {
            // Messages are applied once the connection is opened, and not once its writing has
            // ended (a revoked link).
            let (next, opened) = state.withLock { state in
                (state.inbox.next(ready: state.opened != nil && !writer.isEnding), state.opened)
            }
            switch next {
            case .apply(let batch):
                guard let opened else { continue }
                // Anything revoked since the grant was checked — up to now, on any server — is
                // seen first: one read of the revocation count, started after every message of
                // the batch arrived, covers them all, and a revoked window gets none of them
                // applied or acknowledged.
                guard await grantStillChecked() else { continue }
                for message in batch {
                    // Nothing more is applied once the connection is closing, or its writing has
                    // ended (a revoked link).
                    guard isOpen else { break }
                    await apply(message, to: opened)
                }
            case .rest(let resume, let finish):
                if resume { socket.resumeReading() }
                if finish { await self.finish() }
                return
            }
        }
    }

    private func apply(_ message: String?, to opened: Opened) async {
        let now = clock.now
        let allowed = state.withLock { $0.rate.take(now: now) }
        guard allowed else { return close(.tooManyMessages, reason: "Too many messages; slow down.") }
        // Then its turn in what the client's other connections and the document's share.
        await rates.take()
        let request: LiveRequest
        do {
            guard let text = message else { throw EmojiArtError(.malformedJSON, "send text messages.") }
            switch try LiveInbound(json: Array(text.utf8)) {
            case .request(let parsed):
                request = parsed
            case .presence(let update):
                // Viewers are present too: presence changes nothing.
                if let peer = state.withLock({ $0.peer }) {
                    await channel.presence.update(document: start.document, peer: peer, update)
                }
                return
            case .summon:
                // Only those who may change the document may bring everyone to their view; a
                // viewer's call goes nowhere (the editor offers it only to editors).
                if opened.role.canEdit, let peer = state.withLock({ $0.peer }) {
                    await channel.presence.summon(document: start.document, peer: peer)
                }
                return
            }
        } catch {
            let reason = "Not a request: \(APIError(error).message)"
            return close(.badMessage, reason: String(reason.prefix(120)))
        }
        guard opened.role.canEdit else {
            _ = writer.deliver(
                .reply(
                    .refused(
                        requestID: request.requestID, code: "forbidden",
                        message: "You can view this document but not change it.", currentVersion: nil)))
            return
        }
        _ = writer.deliver(
            .reply(await channel.perform(request, on: opened.document, author: start.access.author)))
    }

    /// Whether the grant stands, checked again if anything was revoked anywhere since it was
    /// last checked; false once the connection ends (revoked, or the store can't be asked).
    private func grantStillChecked() async -> Bool {
        guard canBeRevoked else { return isOpen }
        let count: Int
        do {
            count = try await channel.revocations.current()
        } catch {
            close(.documentClosed, reason: "Try again.")
            return false
        }
        let (checked, registration) = state.withLock { ($0.checkedRevocations, $0.registration) }
        if count != checked, let registration {
            guard await channel.grants.revocationSeen(registration) else {
                close(.documentClosed, reason: "Try again.")
                return false
            }
            state.withLock { $0.checkedRevocations = count }
        }
        return isOpen
    }

    /// Neither closing nor ending its writing (a revoked grant ends it).
    private var isOpen: Bool { !writer.isEnding && state.withLock { $0.inbox.isOpen } }

    /// Whether anything the connection was opened with can be revoked: not local mode's one
    /// user, who owns everything and has no session, token or link to lose.
    private var canBeRevoked: Bool { start.access.requester != .local }

    // MARK: - Ending

    /// Leaves the document's room (once): the others, on every server, see this window go.
    private func leaveRoom() {
        guard
            let peer = state.withLock({ state in
                defer { state.peer = nil }
                return state.peer
            })
        else { return }
        let (presence, document) = (channel.presence, start.document)
        Task { await presence.leave(document: document, peer: peer) }
    }

    /// Lets go of what the connection held: the document's copy, its place among who is
    /// present, its grant, its share of the rates.
    func finish() async {
        let (opened, peer, registration) = state.withLock { state in
            defer { (state.opened, state.peer, state.registration) = (nil, nil, nil) }
            return (state.opened, state.peer, state.registration)
        }
        opened?.following.end()
        if let peer { await channel.presence.leave(document: start.document, peer: peer) }
        if let registration { await channel.grants.unregister(registration) }
        rates.leave()
        finished()
    }
}
