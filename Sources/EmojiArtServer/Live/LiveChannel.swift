import EmojiArtKit
import EmojiArtLive
import EmojiArtStore
import EmojiArtWire
import Foundation
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
        var messages = RateLimit(perSecond: 200, burst: 400)
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
    /// Whether anything was revoked since a connection last checked its grant.
    let revocations: RevocationWatch
    /// Who else is in each document (pointers, selections): relayed, never applied.
    let presence: PresenceHub
    /// Snapshots encoded once per document state, shared by the windows that open it.
    let snapshots: SnapshotFrames
    let shared: SharedLimits
    var limits = Limits()
    let logger: Logger

    /// The kernel's send buffer for a live connection (it keeps twice this). Left to itself
    /// Linux grows it to 4 MB, which it copies from us whether or not the window reads: 200
    /// windows that never read a 7 MB snapshot took 800 MB and every event loop's time.
    static let sendBufferBytes = 512 * 1024

    static func limitSendBuffer(of channel: any Channel) {
        channel.setOption(ChannelOptions.socketOption(.so_sndbuf), value: SocketOptionValue(sendBufferBytes))
            .whenComplete { _ in }
    }

    /// The session of a window just connected (``LiveChannels/connect(_:socket:channel:finished:)``),
    /// writing into `channel`.
    ///
    /// - Parameter finished: called once the connection has closed and let go of everything.
    func session(
        _ start: LiveStart, socket: LiveSocket.Handle, channel: any Channel, finished: @escaping @Sendable () -> Void
    ) -> LiveSession {
        let writer = LiveWriter(channel: channel, limit: LiveDocument.subscriberBufferLimit) { ending in
            socket.close(.unknown(ending.code.rawValue), reason: ending.reason)
        }
        return LiveSession(
            channel: self, start: start, socket: socket, writer: writer, rates: SenderRates(start, shared: shared),
            finished: finished)
    }

    /// Applies a request to the connection's copy; if that copy was closed meanwhile (unloaded,
    /// or it fell out of step), to the library's fresh one — the window is told to reconnect
    /// anyway, but this request is not lost.
    func perform(_ request: LiveRequest, on document: LiveDocument, author: UUID?) async -> LiveReply {
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
struct SenderRates: Sendable {
    /// Each connection's number, for the shared limits.
    private static let connections = Atomic<UInt64>(0)

    let connection: UInt64
    let address: String
    let document: UUID
    let shared: LiveChannel.SharedLimits
    private let addressRate: SharedRate
    private let documentRate: SharedRate

    init(_ start: LiveStart, shared: LiveChannel.SharedLimits) {
        connection = Self.connections.add(1, ordering: .relaxed).newValue
        address = start.address
        document = start.document
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
