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
    let grants: LiveGrants
    let settings: AccessSettings
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
    }

    // MARK: Links

    @Sendable func createLink(_ request: Request, context: AppRequestContext) async throws -> EditedResponse<LinkBody> {
        let id = try await manage(context)
        guard let requested = try await decode(LinkRequest.self, from: request),
            let role = ShareLink.Role(rawValue: requested.role)
        else { throw APIError.badRequest("Send {\"role\": \"view\"} or {\"role\": \"edit\"}.") }
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

    /// `GET /s/{token}`: the link's role on its document for this browser (a cookie), then the
    /// editor. No account needed.
    @Sendable func openLink(_ request: Request, context: AppRequestContext) async throws -> Response {
        guard let token = context.parameters.get("token"), Secret.isWellFormed(token),
            let link = try await links.link(token: token)
        else {
            throw APIError.notFound("This share link doesn't work: it was revoked, or its document was deleted.")
        }
        var tokens = Cookies.linkTokens(Cookies.read(request.headers)).filter { $0 != token }
        tokens.append(token)
        var headers = HTTPFields()
        headers[.location] = "/documents/\(link.documentID.uuidString)"
        headers[.cacheControl] = "no-store"
        headers[.setCookie] = Cookies.setLinks(tokens, secure: settings.secureCookies)
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
        else { throw APIError.badRequest("Send {\"role\": \"editor\"} or {\"role\": \"viewer\"}.") }
        let user = try await member(context)
        try await shares.setRole(role, of: user.id, on: id)
        await grants.membersChanged(id)
        return try await members(of: id)
    }

    @Sendable func removeMember(_ request: Request, context: AppRequestContext) async throws -> Response {
        let id = try await manage(context)
        let user = try await member(context)
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

    /// The user named in the path (not the owner themselves).
    private func member(_ context: AppRequestContext) async throws -> User {
        guard let name = context.parameters.get("name"), let user = try await users.user(named: name)?.user else {
            throw APIError.notFound("There is no user with that name.")
        }
        if user.id == context.access.requester.userID {
            throw APIError(
                status: .unprocessableContent, code: "owner", message: "You own this document; share it with others.")
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
