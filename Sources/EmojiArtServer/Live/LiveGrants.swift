import EmojiArtStore
import Foundation

/// The live connections open on this server and what they were opened with, so that a revoked
/// link, a changed role, an ended session or a revoked token closes them at once (on every
/// server: the store's change feed brings other servers' changes here; the maintenance sweep
/// catches what no one announced, like a password changed from the CLI on SQLite).
actor LiveGrants {
    private struct Connection {
        var document: UUID
        var access: RequestAccess
        var grant: DocumentAccess.Grant
        /// Ends the connection, saying why.
        var revoke: @Sendable (String) -> Void
    }

    private let access: DocumentAccess
    private let authenticator: Authenticator
    private var connections: [UUID: Connection] = [:]

    init(access: DocumentAccess, authenticator: Authenticator) {
        self.access = access
        self.authenticator = authenticator
    }

    /// Registers a connection and checks its grant once more (a revocation may have come while
    /// it was being opened); `revoke` is called, once, with the reason when its access ends.
    func register(
        document: UUID, access requestAccess: RequestAccess, grant: DocumentAccess.Grant,
        revoke: @escaping @Sendable (String) -> Void
    ) async -> UUID {
        let id = UUID()
        connections[id] = Connection(document: document, access: requestAccess, grant: grant, revoke: revoke)
        await recheck(id, reason: "Your access to this document changed.")
        return id
    }

    func unregister(_ id: UUID) {
        connections[id] = nil
    }

    /// A link was revoked: connections that held it check their access again.
    func linkRevoked(_ link: UUID) async {
        for (id, connection) in connections where connection.access.links.contains(where: { $0.id == link }) {
            await recheck(id, reason: "The share link was revoked.")
        }
    }

    /// A document's members changed: its connections check their access again.
    func membersChanged(_ document: UUID) async {
        for (id, connection) in connections where connection.document == document {
            await recheck(id, reason: "Your access to this document changed.")
        }
    }

    /// A session ended (signed out): its connections end.
    func sessionEnded(hash: String) async {
        for (id, connection) in connections where connection.access.requester.sessionHash == hash {
            await recheck(id, reason: "You signed out.")
        }
    }

    /// Everything may have changed (a user removed, a password or token changed, the feed
    /// reconnected, or just time passing): every connection checks its access again.
    func recheckAll() async {
        for id in connections.keys {
            await recheck(id, reason: "Your access to this document changed.")
        }
    }

    /// Something was revoked somewhere (``RevocationWatch``): the connection checks its grant
    /// again before it applies anything more. False if the store couldn't be asked.
    func revocationSeen(_ id: UUID) async -> Bool {
        await recheck(id, reason: "Your access to this document changed.")
    }

    /// Ends the connection unless its credentials still work and give the same role; keeps what
    /// they give now. A store that can't be asked ends nothing (and is answered false).
    @discardableResult
    private func recheck(_ id: UUID, reason: String) async -> Bool {
        guard let connection = connections[id] else { return true }
        let current: RequestAccess?
        let grant: DocumentAccess.Grant?
        do {
            current = try await authenticator.stillValid(connection.access)
            if let current {
                grant = try await access.grant(current, on: connection.document)
            } else {
                grant = nil
            }
        } catch {
            return false
        }
        guard let current, let grant, grant.role == connection.grant.role else {
            connections[id] = nil
            connection.revoke(current == nil ? "Your session ended; sign in again." : reason)
            return true
        }
        connections[id]?.access = current
        connections[id]?.grant = grant
        return true
    }
}

extension Requester {
    var sessionHash: String? {
        if case .user(_, .session(let hash)) = self { return hash }
        return nil
    }
}
