import EmojiArtStore
import Foundation

/// What a request may do with one document: its owner's, a member's or a share link's role.
/// A document the requester may not see is `404` (so ids reveal nothing), a change they may not
/// make is `403`, and a request that carries nothing at all is `401`.
public struct DocumentAccess: Sendable {
    /// A role on a document and where it came from.
    public struct Grant: Sendable, Equatable {
        public var role: DocumentRole
        /// The share link that gave it, when no membership gives as much.
        public var link: UUID?
    }

    /// What a request wants to do.
    public enum Need: Sendable {
        /// See it, live, export it, draw it.
        case view
        /// Start, answer, edit and resolve comment threads.
        case comment
        /// Change its content or title, undo, redo.
        case edit
        /// Delete it, share it, revoke links.
        case manage

        func isMet(by role: DocumentRole) -> Bool {
            switch self {
            case .view: true
            case .comment: role.canComment
            case .edit: role.canEdit
            case .manage: role.canManage
            }
        }
    }

    let shares: any ShareStore

    public init(shares: any ShareStore) {
        self.shares = shares
    }

    /// The best role the request has on the document, or nil.
    public func grant(_ access: RequestAccess, on documentID: UUID) async throws -> Grant? {
        if case .local = access.requester { return Grant(role: .owner) }
        var best: Grant?
        if let userID = access.requester.userID, let role = try await shares.role(of: userID, on: documentID) {
            best = Grant(role: role)
        }
        for link in access.links where best?.role != .owner && link.documentID == documentID {
            let role = link.role.documentRole
            if best.map({ role > $0.role }) ?? true { best = Grant(role: role, link: link.id) }
        }
        return best
    }

    /// The grant that lets the request do `need`, or the error to answer with.
    public func require(_ need: Need, _ access: RequestAccess, on documentID: UUID) async throws -> Grant {
        guard let grant = try await grant(access, on: documentID) else {
            throw access.isSomeone ? APIError.notFound("There is no document \(documentID).") : APIError.unauthorized
        }
        guard need.isMet(by: grant.role) else {
            let message =
                switch need {
                case .manage: "Only the document's owner can do that."
                case .comment: "You can view this document but not comment on it; ask its owner for a comment link."
                case .view, .edit: "You can view this document but not change it; ask its owner for edit access."
                }
            throw APIError.forbidden(message)
        }
        return grant
    }

    /// The document the request's path names (`:id`) and the requester's grant on it, if it
    /// allows `need`: before the body is read or anything else is looked at.
    func require(_ need: Need, _ context: AppRequestContext) async throws -> (UUID, Grant) {
        guard let text = context.parameters.get("id"), let id = UUID(uuidString: text) else {
            if !context.access.isSomeone { throw APIError.unauthorized }
            throw APIError.notFound("There is no document with that id.")
        }
        return (id, try await require(need, context.access, on: id))
    }

    /// Whose documents the request's list holds: everything in local mode; else the requester's
    /// own and shared ones, and those its links open, each link with its role.
    public func listingScope(_ access: RequestAccess) -> DocumentListing.Scope {
        if case .local = access.requester { return .everything }
        var links: [UUID: DocumentRole] = [:]
        for link in access.links {
            links[link.documentID] = max(links[link.documentID] ?? link.role.documentRole, link.role.documentRole)
        }
        return .visible(user: access.requester.userID, links: links)
    }
}
