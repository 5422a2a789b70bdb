import EmojiArtKit
import EmojiArtLive
import EmojiArtStore
import EmojiArtWire
import Foundation
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOWebSocket
import Synchronization

/// `GET /api/documents/{id}/live[?version=N]`, upgraded to a WebSocket: one window following
/// one document (docs/API.md, "Live documents").
///
/// The server speaks first: the whole state (`snapshot`), or — for a window reconnecting at a
/// version whose later changes are still kept — those `change`s and then `synced`. From then
/// on every committed version reaches the window as a `change`, in order, whoever made it
/// (this window, another, or the HTTP API), as do `background` states and `deleted`. The
/// window sends `edit`, `undo` and `redo` requests, applied one at a time in order; each is
/// answered `ack` (after the `change` it made) or `refused`.
///
/// The messages themselves, and the order they go out in (``LiveOutbox``), belong to the wire
/// target; this type connects them to a socket, a document and the requester's grant.
struct LiveChannel: Sendable {
    struct Limits: Sendable {
        /// Longest message a window may send (larger ones close the connection with 1009).
        var maximumMessageBytes = 1024 * 1024
        /// Sustained messages per second a window may send, and the burst above that (more
        /// closes the connection with 4429).
        var messagesPerSecond = 200.0
        var burst = 400.0
    }

    /// The message rates connections share, per client address and per document: past them a
    /// connection waits its fair turn (and is not read meanwhile) rather than being closed.
    struct SharedLimits: Sendable {
        let addresses: SharedRates<String>
        let documents: SharedRates<UUID>

        init(_ settings: AccessSettings) {
            addresses = SharedRates(settings.liveMessagesPerAddress)
            documents = SharedRates(settings.liveMessagesPerDocument)
        }
    }

    let library: DocumentLibrary
    let access: DocumentAccess
    let grants: LiveGrants
    /// Who else is in each document (pointers, selections): relayed, never applied.
    let presence: PresenceHub
    /// Snapshots encoded once per document state, shared by the windows that open it.
    let snapshots: SnapshotFrames
    let shared: SharedLimits
    var limits = Limits()
    let logger: Logger

    /// Each connection's number, for the shared limits.
    private static let connections = Atomic<UInt64>(0)

    /// - Parameter address: the client's, as ``ClientAddress`` counts it.
    /// - Parameter channel: the connection's, which the window's messages are written into
    ///   once it has its snapshot (``LiveWriter``).
    func run(
        document id: UUID, since version: Int?, access requestAccess: RequestAccess, address: String,
        channel: any Channel, inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter
    ) async throws {
        // Who is asking, and may they? Only then is the document opened.
        let grant: DocumentAccess.Grant
        do {
            guard let found = try await access.grant(requestAccess, on: id) else {
                let (code, reason) =
                    requestAccess.isSomeone
                    ? (LiveCloseCode.noDocument, "There is no such document.")
                    : (LiveCloseCode.unauthorized, "Sign in, or open a share link.")
                try? await outbound.close(.unknown(code.rawValue), reason: reason)
                return
            }
            grant = found
        } catch {
            try? await outbound.close(.unknown(LiveCloseCode.documentClosed.rawValue), reason: "Try again.")
            return
        }
        let rates = SenderRates(
            connection: Self.connections.add(1, ordering: .relaxed).newValue, address: address, document: id,
            shared: shared)
        defer { rates.leave() }
        try await follow(
            document: id, since: version, access: requestAccess, grant: grant, rates: rates,
            writer: LiveWriter(channel: channel, limit: LiveDocument.subscriberBufferLimit), inbound: inbound,
            outbound: outbound)
    }

    /// The connection once the requester may follow the document: until it ends, the window
    /// hears the document and its requests are applied.
    private func follow(
        document id: UUID, since version: Int?, access requestAccess: RequestAccess, grant: DocumentAccess.Grant,
        rates: SenderRates, writer: LiveWriter, inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter
    ) async throws {
        // One writer: the document's events and this window's replies meet in it, and its
        // outbox decides what is written when. A revoked link, a changed role, an ended session
        // end it with 4403 and the reason (no task of its own watches for it).
        let registration = await grants.register(document: id, access: requestAccess, grant: grant) { reason in
            writer.end(.accessRevoked, reason: reason)
        }
        do {
            try await followRegistered(
                document: id, since: version, role: grant.role, name: requestAccess.requester.user?.name,
                author: requestAccess.author, writer: writer, rates: rates, inbound: inbound, outbound: outbound)
        } catch {
            await grants.unregister(registration)
            throw error
        }
        await grants.unregister(registration)
    }

    /// ``follow(document:since:access:grant:rates:writer:inbound:outbound:)`` once the
    /// connection is registered: opens the document, sends what the window needs, then writes
    /// and reads until either ends.
    private func followRegistered(
        document id: UUID, since version: Int?, role: DocumentRole, name: String?, author: UUID?,
        writer: LiveWriter, rates: SenderRates, inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter
    ) async throws {
        defer { writer.stop() }
        let following: LiveFollowing
        // The connection holds the copy it follows, and sends its requests straight to it. The
        // document hands its events straight to the writer; a window that stops reading is
        // dropped: the document forgets it at once, and the connection closes with 4408.
        let document: LiveDocument
        do {
            guard
                let found = try await library.withDocument(
                    id,
                    { document in
                        let following = try await document.follow(
                            since: version, receive: { writer.deliver(.event($0)) },
                            ended: { _ = writer.deliver(.eventsEnded) })
                        return (document, following)
                    })
            else {
                try? await outbound.close(
                    .unknown(LiveCloseCode.noDocument.rawValue), reason: "There is no such document.")
                return
            }
            (document, following) = found
        } catch {
            try? await outbound.close(.unknown(LiveCloseCode.documentClosed.rawValue), reason: "Try again.")
            return
        }
        defer { following.end() }
        do {
            if let missed = following.missed {
                for change in missed {
                    try await outbound.write(.text(change.encoded.value { LiveMessages.change(change) }))
                }
                try await outbound.write(.text(LiveMessages.synced(following.state)))
            } else {
                try await Self.writeInFragments(await snapshots.frame(for: following.state), to: outbound)
            }
        } catch {
            return
        }
        writer.start(sentVersion: following.state.version)
        // Present from now on: the others' pointers and selections arrive, and ours reach them.
        let peer = await presence.join(document: id, name: name) { _ = writer.deliver(.presence($0)) }
        let protocolError = await withTaskGroup(of: (any Error)?.self) { group in
            group.addTask {
                // The writer's close (a deletion, a revocation, a window fallen behind), once
                // everything before it is written.
                if let ending = await writer.ending() {
                    try? await outbound.close(.unknown(ending.code.rawValue), reason: ending.reason)
                }
                return nil
            }
            group.addTask {
                await receive(
                    inbound, document: document, role: role, author: author, peer: peer, rates: rates,
                    writer: writer, outbound: outbound)
            }
            // The first to end — the writer after a close, the reader — ends all. The reader's
            // error counts whichever ends first: it stops the writer as it ends, so the writer's
            // task may be the one seen first.
            var error = await group.next() ?? nil
            group.cancelAll()
            for await other in group where error == nil { error = other }
            return error
        }
        await presence.leave(document: id, peer: peer)
        // Thrown on, so the WebSocket layer closes with its code: 1002 for a frame that breaks
        // the protocol, 1007 for text that is not UTF-8, 1009 for a message too large.
        if let protocolError { throw protocolError }
    }

    /// Longest fragment a big message is written in.
    static let fragmentBytes = 64 * 1024

    /// The kernel's send buffer for a live connection (it keeps twice this). Left to itself
    /// Linux grows it to 4 MB, which it copies from us whether or not the window reads: 200
    /// windows that never read a 7 MB snapshot took 800 MB and every event loop's time.
    static let sendBufferBytes = 512 * 1024

    static func limitSendBuffer(of channel: any Channel) {
        channel.setOption(ChannelOptions.socketOption(.so_sndbuf), value: SocketOptionValue(sendBufferBytes))
            .whenComplete { _ in }
    }

    /// Writes a text message as fragments of at most ``fragmentBytes``, each waiting until the
    /// connection can take more: a 7 MB snapshot sent to 200 windows at once then takes its turns
    /// with everyone else's requests on the event loops instead of holding one for milliseconds
    /// per window, and a window that doesn't read stops being written to once its socket is
    /// full. The fragments are slices of the one shared buffer: nothing is copied.
    static func writeInFragments(_ message: ByteBuffer, to outbound: WebSocketOutboundWriter) async throws {
        var rest = message
        var opcode = WebSocketOpcode.text
        repeat {
            let fragment = rest.readSlice(length: min(fragmentBytes, rest.readableBytes)) ?? ByteBuffer()
            try await outbound.write(
                .custom(WebSocketFrame(fin: rest.readableBytes == 0, opcode: opcode, data: fragment)))
            opcode = .continuation
        } while rest.readableBytes > 0
    }

    /// Applies the window's requests in order, answering each through `writer`, which it stops
    /// as it ends. (Its closes are sent before that: stopping the writer first would end the
    /// connection's task group, cancelling the close mid-write. Nothing the writer writes after
    /// a close frame reaches the window: ``CloseGuard``.)
    private func receive(
        _ inbound: WebSocketInboundStream, document: LiveDocument, role: DocumentRole, author: UUID?, peer: String,
        rates: SenderRates, writer: LiveWriter, outbound: WebSocketOutboundWriter
    ) async -> (any Error)? {
        let replies: @Sendable (LiveOutbox.Item) -> Void = { _ = writer.deliver($0) }
        defer { writer.stop() }
        var bucket = limits.burst
        var refilled = ContinuousClock.now
        do {
            for try await message in inbound.messages(maxSize: limits.maximumMessageBytes) {
                let now = ContinuousClock.now
                let elapsed = now - refilled
                bucket = min(
                    limits.burst,
                    bucket + limits.messagesPerSecond
                        * (Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18))
                refilled = now
                guard bucket >= 1 else {
                    try await outbound.close(
                        .unknown(LiveCloseCode.tooManyMessages.rawValue), reason: "Too many messages; slow down.")
                    return nil
                }
                bucket -= 1
                // Then its turn in what the client's other connections and the document's share.
                await rates.take()
                let request: LiveRequest
                do {
                    guard case .text(let text) = message else {
                        throw EmojiArtError(.malformedJSON, "send text messages.")
                    }
                    switch try LiveInbound(json: Array(text.utf8)) {
                    case .request(let parsed):
                        request = parsed
                    case .presence(let update):
                        // Viewers are present too: presence changes nothing.
                        await presence.update(document: document.id, peer: peer, update)
                        continue
                    }
                } catch {
                    let reason = "Not a request: \(APIError(error).message)"
                    try await outbound.close(
                        .unknown(LiveCloseCode.badMessage.rawValue), reason: String(reason.prefix(120)))
                    return nil
                }
                guard role.canEdit else {
                    replies(
                        .reply(
                            .refused(
                                requestID: request.requestID, code: "forbidden",
                                message: "You can view this document but not change it.", currentVersion: nil)))
                    continue
                }
                replies(.reply(await perform(request, on: document, author: author)))
            }
            return nil
        } catch {
            logger.debug("live connection ended: \(error)")
            return error
        }
    }

    /// Applies a request to the connection's copy; if that copy was closed meanwhile (unloaded,
    /// or it fell out of step), to the library's fresh one — the window is told to reconnect
    /// anyway, but this request is not lost.
    private func perform(_ request: LiveRequest, on document: LiveDocument, author: UUID?) async -> LiveReply {
        @Sendable func apply(to document: LiveDocument) async throws -> LiveDocumentState {
            switch request {
            case .edit(_, let submission):
                try await document.perform(
                    submission.edits, baseVersion: submission.baseVersion, gesture: submission.gesture,
                    requestID: request.requestID, author: author)
            case .undo: try await document.undo(requestID: request.requestID, author: author)
            case .redo: try await document.redo(requestID: request.requestID, author: author)
            }
        }
        do {
            let state: LiveDocumentState?
            do {
                state = try await apply(to: document)
            } catch LiveDocumentError.unloaded {
                state = try await library.withDocument(document.id, apply)
            }
            guard let state else { throw LiveDocumentError.deleted }
            return .acknowledged(requestID: request.requestID, version: state.version)
        } catch {
            let apiError = APIError(error)
            var currentVersion: Int?
            if case .conflict(let version, _) = error as? LiveDocumentError { currentVersion = version }
            return .refused(
                requestID: request.requestID, code: apiError.code, message: apiError.message,
                currentVersion: currentVersion)
        }
    }
}

/// One connection's part in the rates shared by its client address and its document.
private struct SenderRates: Sendable {
    let connection: UInt64
    let address: String
    let document: UUID
    let shared: LiveChannel.SharedLimits
    private let addressRate: SharedRate
    private let documentRate: SharedRate

    init(connection: UInt64, address: String, document: UUID, shared: LiveChannel.SharedLimits) {
        self.connection = connection
        self.address = address
        self.document = document
        self.shared = shared
        addressRate = shared.addresses.join(address)
        documentRate = shared.documents.join(document)
    }

    func take() async {
        await addressRate.take(connection)
        await documentRate.take(connection)
    }

    func leave() {
        shared.addresses.leave(address, connection: connection)
        shared.documents.leave(document, connection: connection)
    }
}
