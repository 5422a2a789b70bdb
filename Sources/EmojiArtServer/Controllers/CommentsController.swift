import EmojiArtKit
import EmojiArtLive
import EmojiArtStore
import EmojiArtWire
import Foundation
import HTTPTypes
import Hummingbird

/// Comment threads on a document (`/api/documents/{id}/comments`): anyone who may see the
/// document reads them; owners, editors and commenters (a `comment` link, or shared by name as
/// commenter) start, answer and resolve them; each author edits and deletes their own, and the
/// owner deletes any. Every change reaches the document's windows on every server at once
/// (``LiveMessages/comments``). Comments are not document edits: no undo, no version, not in
/// `.emojiart` files.
struct CommentsController {
    let library: DocumentLibrary
    let access: DocumentAccess
    let comments: any CommentStore
    let presence: PresenceHub
    /// Says how client addresses are told apart (behind a proxy, or not).
    let settings: AccessSettings
    var now: @Sendable () -> Date = Date.init

    func addRoutes(to documents: RouterGroup<AppRequestContext>) {
        documents.get(":id/comments", use: list)
        documents.post(":id/comments", use: create)
        documents.post(":id/comments/:cid/replies", use: reply)
        documents.patch(":id/comments/:cid", use: change)
        documents.delete(":id/comments/:cid", use: delete)
    }

    // MARK: Requests and answers

    struct Place: Codable {
        var x: Double
        var y: Double
    }

    struct NewThread: Decodable {
        var text: String
        var position: Place?
        var emojiId: Int?
    }

    struct NewReply: Decodable {
        var text: String
    }

    struct Change: Decodable {
        var text: String?
        var resolved: Bool?
    }

    struct CommentBody: ResponseEncodable {
        var id: UUID
        var text: String
        var author: String
        /// Whether the requester wrote it (and so may edit and delete it).
        var mine: Bool
        var createdAt: String
        var editedAt: String?

        init(_ comment: Comment, for reader: CommentAuthor?) {
            id = comment.id
            text = comment.text
            author = comment.author.name
            mine = comment.author.key == reader?.key
            createdAt = comment.createdAt.apiString
            editedAt = comment.editedAt?.apiString
        }
    }

    struct ThreadBody: ResponseEncodable {
        var id: UUID
        var text: String
        var author: String
        var mine: Bool
        var position: Place
        var emojiId: Int?
        var resolved: Bool
        var replies: [CommentBody]
        var createdAt: String
        var updatedAt: String
        var editedAt: String?

        init(_ thread: CommentThread, for reader: CommentAuthor?) {
            let first = CommentBody(thread.first, for: reader)
            id = first.id
            text = first.text
            author = first.author
            mine = first.mine
            position = Place(x: thread.position.x, y: thread.position.y)
            emojiId = thread.emojiID
            resolved = thread.resolved
            replies = thread.replies.map { CommentBody($0, for: reader) }
            createdAt = first.createdAt
            updatedAt = thread.updatedAt.apiString
            editedAt = first.editedAt
        }
    }

    struct ListBody: ResponseEncodable {
        var comments: [ThreadBody]
    }

    // MARK: Routes

    @Sendable func list(_ request: Request, context: AppRequestContext) async throws -> ListBody {
        let (id, _) = try await access.require(.view, context)
        let threads = try await pinned(try await comments.threads(of: id), of: id)
        let reader = Self.author(context.access)
        return ListBody(comments: threads.map { ThreadBody($0, for: reader) })
    }

    @Sendable func create(_ request: Request, context: AppRequestContext) async throws -> EditedResponse<ThreadBody> {
        let (id, _) = try await access.require(.comment, context)
        let author = try Self.writer(context.access)
        guard let body = try await decode(NewThread.self, from: request) else {
            throw APIError.badRequest("The request needs a JSON body.")
        }
        let text = try Self.checked(body.text)
        let state = try await library.document(id) { try await $0.state() }
        let position: CommentPoint
        if let emojiID = body.emojiId {
            guard let emoji = state.document.emojis[id: emojiID] else {
                throw Self.invalid("There is no emoji \(emojiID) in this document to pin the comment to.")
            }
            position = CommentPoint(emoji.position)
        } else if let place = body.position {
            let range =
                Double(DocumentLimits.coordinateRange.lowerBound)...Double(DocumentLimits.coordinateRange.upperBound)
            guard place.x.isFinite, place.y.isFinite, range.contains(place.x), range.contains(place.y) else {
                throw Self.invalid("A comment's position is a point of the picture, within ±1,000,000.")
            }
            position = CommentPoint(x: place.x, y: place.y)
        } else {
            throw Self.invalid("Say where the comment goes: \"position\": {\"x\", \"y\"} or \"emojiId\".")
        }
        let date = now()
        let thread = CommentThread(
            documentID: id, first: Comment(text: text, author: author, createdAt: date), position: position,
            emojiID: body.emojiId, anchorVersion: state.version)
        do {
            try await comments.createThread(
                thread, openLimit: CommentLimits.openThreads, quota: quota(author, request, context, at: date))
        } catch CommentStoreError.tooManyOpenThreads {
            throw Self.tooManyOpen
        } catch CommentStoreError.tooManyComments {
            throw Self.tooManyComments
        } catch AccountStoreError.unknownDocument {
            throw APIError.notFound("There is no document \(id).")
        }
        await announce(id)
        return EditedResponse(status: .created, response: ThreadBody(thread, for: author))
    }

    @Sendable func reply(_ request: Request, context: AppRequestContext) async throws -> EditedResponse<CommentBody> {
        let (id, _) = try await access.require(.comment, context)
        let author = try Self.writer(context.access)
        let threadID = try Self.commentID(context)
        guard let body = try await decode(NewReply.self, from: request) else {
            throw APIError.badRequest("The request needs a JSON body.")
        }
        let text = try Self.checked(body.text)
        let reply = Comment(text: text, author: author, createdAt: now())
        let added: Bool
        do {
            added = try await comments.addReply(
                reply, to: threadID, of: id, quota: quota(author, request, context, at: reply.createdAt))
        } catch CommentStoreError.tooManyComments {
            throw Self.tooManyComments
        }
        guard added else { throw Self.noSuchThread }
        await announce(id)
        return EditedResponse(status: .created, response: CommentBody(reply, for: author))
    }

    /// `{"text"}` changes the comment's text (its author's only); `{"resolved"}` resolves or
    /// reopens its thread (anyone who may comment). Answers the whole thread.
    @Sendable func change(_ request: Request, context: AppRequestContext) async throws -> ThreadBody {
        let (id, _) = try await access.require(.comment, context)
        let author = try Self.writer(context.access)
        let commentID = try Self.commentID(context)
        guard let body = try await decode(Change.self, from: request), body.text != nil || body.resolved != nil
        else { throw APIError.badRequest("Send {\"text\": \"…\"} or {\"resolved\": true} (or both).") }
        guard let thread = try await comments.thread(containing: commentID, of: id),
            let comment = thread.comment(commentID)
        else { throw Self.noSuchComment }
        if body.text != nil, comment.author.key != author.key {
            throw APIError.forbidden("Only its author can change a comment.")
        }
        let text = try body.text.map(Self.checked)
        if body.resolved != nil, commentID != thread.id {
            throw Self.invalid("Resolve a thread by its first comment's id.")
        }
        let date = now()
        // Reopening is what may be refused (the open-thread limit): it goes first, so a refusal
        // changes nothing.
        if let resolved = body.resolved {
            do {
                guard
                    try await comments.setResolved(
                        resolved, thread: thread.id, of: id, at: date, openLimit: CommentLimits.openThreads)
                else { throw Self.noSuchComment }
            } catch CommentStoreError.tooManyOpenThreads {
                throw Self.tooManyOpen
            }
        }
        var edited = true
        if let text, text != comment.text {
            edited = try await comments.editComment(commentID, of: id, text: text, at: date)
        }
        await announce(id)  // what changed, even if the comment went meanwhile
        guard edited else { throw Self.noSuchComment }
        guard let changed = try await comments.thread(containing: commentID, of: id) else { throw Self.noSuchComment }
        return ThreadBody(try await pinned([changed], of: id)[0], for: author)
    }

    /// Deletes a reply, or a thread with its replies: its author, or the document's owner.
    @Sendable func delete(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (id, grant) = try await access.require(.comment, context)
        let commentID = try Self.commentID(context)
        guard let thread = try await comments.thread(containing: commentID, of: id),
            let comment = thread.comment(commentID)
        else { throw Self.noSuchComment }
        let isAuthor = comment.author.key == Self.author(context.access)?.key
        guard isAuthor || grant.role.canManage else {
            throw APIError.forbidden("Only its author or the document's owner can delete a comment.")
        }
        guard try await comments.deleteComment(commentID, of: id) else { throw Self.noSuchComment }
        await announce(id)
        return Response(status: .noContent)
    }

    // MARK: Helpers

    /// Tells this server's windows of the document; the store's change feed tells the others'.
    private func announce(_ id: UUID) async {
        await presence.tell(document: id, LiveMessages.comments)
    }

    /// The threads with their pins where they are now: at the emoji each is pinned to, or where
    /// that emoji last was if it is gone (read from the document's history once, then kept).
    private func pinned(_ threads: [CommentThread], of id: UUID) async throws -> [CommentThread] {
        guard threads.contains(where: { $0.emojiID != nil }) else { return threads }
        let state = try await library.document(id) { try await $0.state() }
        let emojis = state.document.emojis
        // Threads whose emoji is gone since they were last brought up to date: one reading of
        // the history from the oldest of them finds where each emoji last was.
        let lost = threads.filter { thread in
            thread.emojiID.map { emojis[id: $0] == nil } == true && thread.anchorVersion < state.version
        }
        let lastPlaces =
            (try? await library.history.lastPlaces(
                of: Set(lost.compactMap(\.emojiID)), in: id, from: lost.map(\.anchorVersion).min() ?? state.version,
                through: state.version)) ?? [:]
        var moved: [UUID: CommentPoint] = [:]
        var result = threads
        for index in result.indices {
            let thread = result[index]
            guard let emojiID = thread.emojiID, thread.anchorVersion < state.version else { continue }
            let place = (emojis[id: emojiID]?.position ?? lastPlaces[emojiID]).map(CommentPoint.init) ?? thread.position
            result[index].position = place
            result[index].anchorVersion = state.version
            // Kept where it moved, or where its emoji was last seen; the next read starts there.
            if place != thread.position || emojis[id: emojiID] == nil
                || state.version - thread.anchorVersion > Self.anchorRefresh
            {
                moved[thread.id] = place
            }
        }
        try? await comments.movePins(moved, of: id, atVersion: state.version)
        return result
    }

    /// A pin whose emoji stands still is written down again after this many versions, so finding
    /// where a deleted emoji last was never reads far back.
    static let anchorRefresh = 500

    /// Who the request writes as: the user (the local one in local mode), else the guest this
    /// browser is. Nil for a request with neither.
    static func author(_ access: RequestAccess) -> CommentAuthor? {
        switch access.requester {
        case .local: .user(LocalUser.id, name: LocalUser.name)
        case .user(let user, _): .user(user.id, name: user.name)
        // A guest is their browser: one that kept only the old links cookie (no browser cookie)
        // opens the link again to comment, so no two visitors of a link are one author.
        case .anonymous: access.browser.map(CommentAuthor.guest(browserHash:))
        }
    }

    private static func writer(_ access: RequestAccess) throws -> CommentAuthor {
        guard let author = author(access) else {
            throw APIError.forbidden("Open the share link again in this browser to comment.")
        }
        return author
    }

    /// At most ``CommentLimits/perMinute`` comments a minute per author and
    /// ``CommentLimits/perAddressPerMinute`` per client address, counted in the store with the
    /// write, so spreading them over servers or racing them doesn't multiply it.
    private func quota(_ author: CommentAuthor, _ request: Request, _ context: AppRequestContext, at date: Date)
        -> CommentQuota
    {
        let address = ClientAddress.key(peer: context.peerAddress, headers: request.headers, settings: settings)
        return CommentQuota(
            limits: [author.key: CommentLimits.perMinute, "address:" + address: CommentLimits.perAddressPerMinute],
            since: date.addingTimeInterval(-60))
    }

    private static func checked(_ text: String) throws -> String {
        if let problem = CommentLimits.problem(with: text) { throw invalid(problem) }
        return text
    }

    private static func commentID(_ context: AppRequestContext) throws -> UUID {
        guard let id = context.parameters.get("cid").flatMap(UUID.init(uuidString:)) else { throw noSuchComment }
        return id
    }

    private static func invalid(_ message: String) -> APIError {
        APIError(status: .unprocessableContent, code: "invalid_comment", message: message)
    }

    private static let tooManyComments = APIError(
        status: .tooManyRequests, code: "too_many_comments",
        message:
            "Too many comments in the last minute (\(CommentLimits.perMinute) a person, "
            + "\(CommentLimits.perAddressPerMinute) from one address); wait a moment, then try again.",
        headers: [.retryAfter: "60"])
    private static let noSuchComment = APIError.notFound("This document has no such comment.")
    private static let noSuchThread = APIError.notFound("This document has no such comment thread.")
    private static let tooManyOpen = APIError(
        status: .unprocessableContent, code: "too_many_threads",
        message: "This document has \(CommentLimits.openThreads) open comment threads; resolve some to start more.")
}

extension CommentPoint {
    init(_ point: Point) {
        self.init(x: Double(point.x), y: Double(point.y))
    }
}
