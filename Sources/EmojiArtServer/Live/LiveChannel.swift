import EmojiArtKit
import EmojiArtLive
import EmojiArtStore
import Foundation
import HummingbirdWebSocket
import Logging

/// `GET /api/documents/{id}/live[?version=N]`, upgraded to a WebSocket: one window following
/// one document (docs/API.md, "Live documents").
///
/// The server speaks first: the whole state (`snapshot`), or — for a window reconnecting at a
/// version whose later changes are still kept — those `change`s and then `synced`. From then
/// on every committed version reaches the window as a `change`, in order, whoever made it
/// (this window, another, or the HTTP API), as do `background` states and `deleted`. The
/// window sends `edit`, `undo` and `redo` requests, applied one at a time in order; each is
/// answered `ack` (after the `change` it made) or `refused`.
struct LiveChannel: Sendable {
    struct Limits: Sendable {
        /// Longest message a window may send (larger ones close the connection with 1009).
        var maximumMessageBytes = 1024 * 1024
        /// Sustained messages per second a window may send, and the burst above that.
        var messagesPerSecond = 200.0
        var burst = 400.0
    }

    /// Close codes (docs/API.md). The browser reconnects after every one but 4400, 4401, 4403
    /// and 4404.
    enum CloseCode: UInt16 {
        case badMessage = 4400
        /// Nothing says who is asking: sign in, or open a share link.
        case unauthorized = 4401
        /// The link this connection came through was revoked, or the requester's role changed.
        case accessRevoked = 4403
        case noDocument = 4404
        case fellBehind = 4408
        case tooManyMessages = 4429
        case documentClosed = 4503
    }

    let library: DocumentLibrary
    let access: DocumentAccess
    let grants: LiveGrants
    var limits = Limits()
    let logger: Logger

    func run(
        document id: UUID, since version: Int?, access requestAccess: RequestAccess, inbound: WebSocketInboundStream,
        outbound: WebSocketOutboundWriter
    ) async throws {
        // Who is asking, and may they? Only then is the document opened.
        let grant: DocumentAccess.Grant
        do {
            guard let found = try await access.grant(requestAccess, on: id) else {
                let (code, reason) =
                    requestAccess.isSomeone
                    ? (CloseCode.noDocument, "There is no such document.")
                    : (CloseCode.unauthorized, "Sign in, or open a share link.")
                try? await outbound.close(.unknown(code.rawValue), reason: reason)
                return
            }
            grant = found
        } catch {
            try? await outbound.close(.unknown(CloseCode.documentClosed.rawValue), reason: "Try again.")
            return
        }
        let registration = await grants.register(document: id, access: requestAccess, grant: grant)
        defer { Task { [grants] in await grants.unregister(registration.id) } }
        let subscription: LiveSubscription
        // The connection holds the copy it follows, and sends its requests straight to it.
        let document: LiveDocument
        do {
            guard
                let found = try await library.withDocument(
                    id, { document in (document, try await document.subscribe(since: version)) })
            else {
                try? await outbound.close(.unknown(CloseCode.noDocument.rawValue), reason: "There is no such document.")
                return
            }
            (document, subscription) = found
        } catch {
            try? await outbound.close(.unknown(CloseCode.documentClosed.rawValue), reason: "Try again.")
            return
        }
        defer { subscription.continuation.finish() }
        do {
            if let missed = subscription.missed {
                for change in missed { try await outbound.write(.text(LiveMessages.change(change))) }
                try await outbound.write(.text(LiveMessages.synced(subscription.state)))
            } else {
                try await outbound.write(.text(LiveMessages.snapshot(subscription.state)))
            }
        } catch {
            return
        }
        let protocolError = await withTaskGroup(of: (any Error)?.self) { group in
            group.addTask {
                await forward(subscription.events, to: outbound)
                return nil
            }
            group.addTask {
                await receive(
                    inbound, document: document, role: grant.role, replies: subscription.continuation,
                    outbound: outbound)
            }
            group.addTask {
                for await reason in registration.revoked {
                    try? await outbound.close(.unknown(CloseCode.accessRevoked.rawValue), reason: reason)
                    return nil
                }
                // Unregistered: the connection is ending anyway; wait to be cancelled.
                while !Task.isCancelled { try? await Task.sleep(for: .seconds(3600)) }
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
        // Thrown on, so the WebSocket layer closes with its code: 1002 for a frame that breaks
        // the protocol, 1007 for text that is not UTF-8, 1009 for a message too large.
        if let protocolError { throw protocolError }
    }

    /// Writes the document's events to the window until the stream ends, then closes.
    private func forward(_ events: AsyncStream<LiveEvent>, to outbound: WebSocketOutboundWriter) async {
        do {
            for await event in events {
                switch event {
                case .change(let change): try await outbound.write(.text(LiveMessages.change(change)))
                case .background(let state): try await outbound.write(.text(LiveMessages.background(state)))
                case .reply(let reply): try await outbound.write(.text(LiveMessages.reply(reply)))
                case .deleted:
                    try await outbound.write(.text(#"{"type":"deleted"}"#))
                    try await outbound.close(
                        .unknown(CloseCode.noDocument.rawValue), reason: "The document was deleted.")
                    return
                case .closed:
                    try await outbound.close(.unknown(CloseCode.documentClosed.rawValue), reason: "Reconnect.")
                    return
                }
            }
            if !Task.isCancelled {
                // The stream ended on its own: this window fell too far behind.
                try await outbound.close(.unknown(CloseCode.fellBehind.rawValue), reason: "Too far behind; reconnect.")
            }
        } catch {
            logger.debug("live connection ended: \(error)")
        }
    }

    /// Applies the window's requests in order, answering each through `replies`.
    private func receive(
        _ inbound: WebSocketInboundStream, document: LiveDocument, role: DocumentRole,
        replies: AsyncStream<LiveEvent>.Continuation, outbound: WebSocketOutboundWriter
    ) async -> (any Error)? {
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
                        .unknown(CloseCode.tooManyMessages.rawValue), reason: "Too many messages; slow down.")
                    return nil
                }
                bucket -= 1
                let request: LiveRequest
                do {
                    guard case .text(let text) = message else {
                        throw EmojiArtError(.malformedJSON, "send text messages.")
                    }
                    request = try LiveRequest(json: Array(text.utf8))
                } catch {
                    let reason = "Not a request: \(APIError(error).message)"
                    try await outbound.close(
                        .unknown(CloseCode.badMessage.rawValue), reason: String(reason.prefix(120)))
                    return nil
                }
                guard role.canEdit else {
                    replies.yield(
                        .reply(
                            .refused(
                                requestID: request.requestID, code: "forbidden",
                                message: "You can view this document but not change it.", currentVersion: nil)))
                    continue
                }
                replies.yield(.reply(await perform(request, on: document)))
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
    private func perform(_ request: LiveRequest, on document: LiveDocument) async -> LiveReply {
        @Sendable func apply(to document: LiveDocument) async throws -> LiveDocumentState {
            switch request {
            case .edit(_, let submission):
                try await document.perform(
                    submission.edits, baseVersion: submission.baseVersion, gesture: submission.gesture,
                    requestID: request.requestID)
            case .undo: try await document.undo(requestID: request.requestID)
            case .redo: try await document.redo(requestID: request.requestID)
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
