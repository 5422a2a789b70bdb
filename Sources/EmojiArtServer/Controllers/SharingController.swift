import EmojiArtStore
import EmojiArtWire
import Foundation
import HTTPTypes
import Hummingbird

/// Sharing a document: by link (`/api/documents/{id}/links`), with people by name
/// (`/api/documents/{id}/members`), and opening a link (`GET /s/{token}`). Only the owner
/// shares; a revoked link stops working at once, live connections included.
struct SharingController {
    let access: DocumentAccess
    let users: any UserStore
    let shares: any ShareStore
    let links: any LinkStore
    /// Where looking up names that aren't there is counted (``NameLookups``).
    let sessions: any SessionStore
    let grants: LiveGrants
    let settings: AccessSettings
    /// Tells a link followed from another site's page.
    let siteGuard: SiteGuard
    /// Where links point: the public URL, else the address the request came to.
    let publicURL: URL?
    var now: @Sendable () -> Date = Date.init

    struct LinkRequest: Decodable {
        var role: String
    }

    struct LinkBody: ResponseEncodable {
        var id: UUID
        var role: String
        var url: String
        var createdAt: String
    }

    struct LinkListBody: ResponseEncodable {
        var links: [LinkBody]
    }

    struct MemberRequest: Decodable {
        var role: String
    }

    struct MemberListBody: ResponseEncodable {
        struct Member: Encodable {
            var name: String
            var role: String
        }

        var members: [Member]
    }

    func addRoutes(documents: RouterGroup<AppRequestContext>, router: Router<AppRequestContext>) {
        documents.post(":id/links", use: createLink)
        documents.get(":id/links", use: listLinks)
        documents.delete(":id/links/:linkId", use: revokeLink)
        documents.get(":id/members", use: listMembers)
        documents.put(":id/members/:name", use: setMember)
        documents.delete(":id/members/:name", use: removeMember)
        router.get("/s/:token", use: openLink)
        router.post("/s/:token", use: confirmLink)
    }

    // MARK: Links

    @Sendable func createLink(_ request: Request, context: AppRequestContext) async throws -> EditedResponse<LinkBody> {
        let id = try await manage(context)
        guard let requested = try await decode(LinkRequest.self, from: request),
            let role = ShareLink.Role(rawValue: requested.role)
        else {
            throw APIError.badRequest("Send {\"role\": \"view\"}, {\"role\": \"comment\"} or {\"role\": \"edit\"}.")
        }
        let link = ShareLink(documentID: id, token: Secret.make(), role: role, createdAt: now())
        do {
            try await links.createLink(link)
        } catch AccountStoreError.unknownDocument {
            throw APIError.notFound("There is no document \(id).")
        }
        return EditedResponse(status: .created, response: body(link, request))
    }

    @Sendable func listLinks(_ request: Request, context: AppRequestContext) async throws -> LinkListBody {
        let id = try await manage(context)
        return LinkListBody(links: try await links.links(of: id).map { body($0, request) })
    }

    @Sendable func revokeLink(_ request: Request, context: AppRequestContext) async throws -> Response {
        let id = try await manage(context)
        guard let text = context.parameters.get("linkId"), let linkID = UUID(uuidString: text),
            try await links.revokeLink(id: linkID, of: id)
        else { throw APIError.notFound("This document has no such link.") }
        // This server's connections at once; other servers' through the store's change feed.
        await grants.linkRevoked(linkID)
        return Response(status: .noContent)
    }

    /// `GET /s/{token}`: the link's role on its document for this browser, then the editor. No
    /// account needed. Followed from another site's page (``SiteGuard/isFromAnotherSite``), it
    /// grants nothing: a page of ours asks the visitor to confirm with one click, a same-origin
    /// `POST` to the same address — so no other site can fill a browser's links with its own.
    @Sendable func openLink(_ request: Request, context: AppRequestContext) async throws -> Response {
        let link = try await link(context)
        if siteGuard.isFromAnotherSite(
            host: request.head.authority, origin: request.headers[.origin], referer: request.headers[.referer],
            fetchSite: request.headers[SiteGuard.secFetchSite])
        {
            return try await WebEditor.page("link.html", context, cacheControl: "no-store")
        }
        return try await grant(link, request: request)
    }

    /// `POST /s/{token}`: the visitor confirmed (the site guard has already refused other sites).
    @Sendable func confirmLink(_ request: Request, context: AppRequestContext) async throws -> Response {
        try await grant(try await link(context), request: request)
    }

    private func link(_ context: AppRequestContext) async throws -> ShareLink {
        guard let token = context.parameters.get("token"), Secret.isWellFormed(token),
            let link = try await links.link(token: token)
        else {
            throw APIError.notFound("This share link doesn't work: it was revoked, or its document was deleted.")
        }
        return link
    }

    /// Keeps the link for this browser (under its browser cookie, made now if it has none; with
    /// the links of the old cookie, which is then cleared) and opens the editor.
    private func grant(_ link: ShareLink, request: Request) async throws -> Response {
        let cookies = Cookies.read(request.headers)
        let browser = cookies[Cookies.browser].flatMap { Secret.isWellFormed($0) ? $0 : nil } ?? Secret.make()
        let date = now()
        let older = Cookies.linkTokens(cookies)
        if !older.isEmpty {
            for kept in try await links.links(tokens: older) {
                try? await links.grantLink(
                    kept.id, toBrowser: Secret.hash(browser), at: date.addingTimeInterval(-1),
                    keeping: LinkStoreLimits.linksPerBrowser)
            }
        }
        do {
            try await links.grantLink(
                link.id, toBrowser: Secret.hash(browser), at: date, keeping: LinkStoreLimits.linksPerBrowser)
        } catch AccountStoreError.unknownDocument {
            throw APIError.notFound("This share link doesn't work: it was revoked, or its document was deleted.")
        }
        var headers = HTTPFields()
        headers[.location] = "/documents/\(link.documentID.uuidString)"
        headers[.cacheControl] = "no-store"
        headers.append(HTTPField(name: .setCookie, value: Cookies.setBrowser(browser, secure: settings.secureCookies)))
        if !older.isEmpty {
            headers.append(
                HTTPField(
                    name: .setCookie,
                    value: Cookies.setCookie(Cookies.links, "", maxAge: 0, secure: settings.secureCookies)))
        }
        return Response(status: .seeOther, headers: headers)
    }

    // MARK: Members

    @Sendable func listMembers(_ request: Request, context: AppRequestContext) async throws -> MemberListBody {
        let id = try await manage(context)
        return try await members(of: id)
    }

    @Sendable func setMember(_ request: Request, context: AppRequestContext) async throws -> MemberListBody {
        let id = try await manage(context)
        guard let requested = try await decode(MemberRequest.self, from: request),
            let role = DocumentRole(rawValue: requested.role), role != .owner
        else {
            throw APIError.badRequest(
                "Send {\"role\": \"editor\"}, {\"role\": \"commenter\"} or {\"role\": \"viewer\"}.")
        }
        let user = try await member(context, request)
        try await shares.setRole(role, of: user.id, on: id)
        await grants.membersChanged(id)
        return try await members(of: id)
    }

    @Sendable func removeMember(_ request: Request, context: AppRequestContext) async throws -> Response {
        let id = try await manage(context)
        let user = try await member(context, request)
        try await shares.setRole(nil, of: user.id, on: id)
        await grants.membersChanged(id)
        return Response(status: .noContent)
    }

    // MARK: Helpers

    /// The document in the path, if the requester owns it.
    private func manage(_ context: AppRequestContext) async throws -> UUID {
        guard let text = context.parameters.get("id"), let id = UUID(uuidString: text) else {
            throw APIError.notFound("There is no document with that id.")
        }
        _ = try await access.require(.manage, context.access, on: id)
        return id
    }

    /// The user named in the path, who may be added (anyone but the owner themselves). Names
    /// are not for probing: a name that isn't there and one that may not be added get the same
    /// `404`, and both count against the asker (``NameLookups``) — `429` once too many have.
    private func member(_ context: AppRequestContext, _ request: Request) async throws -> User {
        let lookups = NameLookups(
            settings: settings, account: try context.access.account(for: "share documents"),
            address: ClientAddress.key(peer: context.peerAddress, headers: request.headers, settings: settings))
        let date = now()
        // In local mode there are no accounts to learn of (and nothing to count).
        let counted = settings.mode == .accounts
        if counted, let retryAfter = try await lookups.retryAfter(sessions, at: date) {
            throw APIError(
                status: .tooManyRequests, code: "too_many_lookups",
                message: "Too many names that aren't here were tried. Wait a few minutes, then try again.",
                headers: [.retryAfter: "\(retryAfter)"])
        }
        guard let name = context.parameters.get("name"), let user = try await users.user(named: name)?.user,
            user.id != context.access.requester.userID
        else {
            if counted { try await sessions.recordSignInFailure(subjects: lookups.subjects, at: date) }
            throw APIError.notFound("There is no one by that name to share with.")
        }
        return user
    }

    private func members(of id: UUID) async throws -> MemberListBody {
        MemberListBody(
            members: try await shares.members(of: id).map { .init(name: $0.user.name, role: $0.role.rawValue) })
    }

    private func body(_ link: ShareLink, _ request: Request) -> LinkBody {
        LinkBody(
            id: link.id, role: link.role.rawValue, url: base(request) + "/s/" + link.token,
            createdAt: link.createdAt.apiString)
    }

    /// The public URL without a trailing slash, else `http://<Host>`.
    private func base(_ request: Request) -> String {
        if let publicURL {
            var text = publicURL.absoluteString
            while text.hasSuffix("/") { text.removeLast() }
            return text
        }
        return "http://" + (request.head.authority ?? "127.0.0.1")
    }
}
