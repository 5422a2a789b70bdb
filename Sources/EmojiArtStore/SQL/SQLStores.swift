import EmojiArtKit
import Foundation

// The stores whose SQL is the same on SQLite and PostgreSQL, written once against
// ``SQLDatabase``. Dates are seconds since 1970; ids are bound as ``SQLValue/uuid(_:)``.

/// Palettes per user, in `user_palette`.
public struct SQLPaletteStore: PaletteStore {
    let database: any SQLDatabase

    public init(database: any SQLDatabase) {
        self.database = database
    }

    public func loadPalettes(owner: UUID) async throws -> [Palette]? {
        let rows = try await database.read(
            SQLStatement(
                "SELECT id, name, emojis FROM user_palette WHERE owner_id = ? ORDER BY position", [.uuid(owner)]))
        guard !rows.isEmpty else { return nil }
        return try rows.map { row in
            guard let id = row[0].uuidValue, let name = row[1].string, let emojis = row[2].string else {
                throw StoreError.corrupt("a palette of user \(owner) can't be read")
            }
            return Palette(id: id, name: name, emojis: emojis)
        }
    }

    public func savePalettes(_ palettes: [Palette], owner: UUID) async throws {
        var statements = [SQLStatement("DELETE FROM user_palette WHERE owner_id = ?", [.uuid(owner)])]
        for (position, palette) in palettes.enumerated() {
            statements.append(
                SQLStatement(
                    "INSERT INTO user_palette (owner_id, id, position, name, emojis) VALUES (?, ?, ?, ?, ?)",
                    [.uuid(owner), .uuid(palette.id), .integer(position), .text(palette.name), .text(palette.emojis)]))
        }
        try await database.write(statements + database.dialect.announcing(.palettes))
    }
}

/// Content-addressed images, and which URL gave which, in `image` and `image_source`.
public struct SQLImageStore: ImageStore {
    let database: any SQLDatabase

    public init(database: any SQLDatabase) {
        self.database = database
    }

    public func saveImage(_ image: StoredImage) async throws {
        try await database.write(
            SQLStatement(
                """
                INSERT INTO image (id, mime_type, width, height, bytes, created_at) VALUES (?, ?, ?, ?, ?, ?)
                ON CONFLICT (id) DO NOTHING
                """,
                [
                    .text(image.id), .text(image.mimeType), .integer(image.width), .integer(image.height),
                    .blob(image.data), .real(Date().timeIntervalSince1970),
                ]))
    }

    public func loadImage(id: String) async throws -> StoredImage? {
        guard
            let row = try await database.read(
                SQLStatement("SELECT mime_type, width, height, bytes FROM image WHERE id = ?", [.text(id)])
            ).first
        else { return nil }
        guard let mimeType = row[0].string, let width = row[1].int, let height = row[2].int, let data = row[3].data
        else { throw StoreError.corrupt("image \(id) can't be read") }
        return StoredImage(id: id, mimeType: mimeType, width: width, height: height, data: data)
    }

    public func saveImageSource(_ url: String, imageID: String) async throws {
        try await database.write(
            SQLStatement(
                """
                INSERT INTO image_source (url, image_id) VALUES (?, ?)
                ON CONFLICT (url) DO UPDATE SET image_id = excluded.image_id
                """, [.text(url), .text(imageID)]))
    }

    public func imageID(forSource url: String) async throws -> String? {
        try await database.read(SQLStatement("SELECT image_id FROM image_source WHERE url = ?", [.text(url)]))
            .first?[0].string
    }

    public func recordImageUse(_ imageID: String, by use: ImageUse) async throws {
        try await database.write(
            SQLStatement(
                """
                INSERT INTO image_use (image_id, kind, subject) VALUES (?, ?, ?)
                ON CONFLICT (image_id, kind, subject) DO NOTHING
                """, [.text(imageID), .text(use.kind), .uuid(use.subject)]))
    }

    public func mayRead(imageID: String, _ reader: ImageReader) async throws -> Bool {
        var conditions: [String] = []
        var binds: [SQLValue] = [.text(imageID)]
        if let user = reader.userID {
            conditions.append("(kind = 'uploader' AND subject = ?)")
            conditions.append("kind = 'game'")
            conditions.append(
                "(kind = 'document' AND subject IN (SELECT document_id FROM document_member WHERE user_id = ?))")
            binds += [.uuid(user), .uuid(user)]
        }
        let linked = Array(Set(reader.linkedDocuments)).prefix(1000)
        if !linked.isEmpty {
            let placeholders = Array(repeating: "?", count: linked.count).joined(separator: ", ")
            conditions.append("(kind = 'document' AND subject IN (\(placeholders)))")
            binds += linked.map(SQLValue.uuid)
        }
        guard !conditions.isEmpty else { return false }
        return try await !database.read(
            SQLStatement(
                """
                SELECT 1 FROM image_use WHERE image_id = ? AND (\(conditions.joined(separator: " OR ")))
                AND EXISTS (SELECT 1 FROM image WHERE id = image_use.image_id) LIMIT 1
                """, binds)
        ).isEmpty
    }
}

/// Users, sessions, tokens, document members and share links: the account aggregates, each its
/// own protocol, kept in one database.
public struct SQLAccountStore: UserStore, SessionStore, TokenStore, ShareStore, LinkStore, RevocationStore {
    let database: any SQLDatabase

    public init(database: any SQLDatabase) {
        self.database = database
    }

    private static let userColumns = "u.id, u.name, u.is_admin, u.created_at"

    /// A user from ``userColumns`` starting at `offset`.
    private static func user(_ row: SQLRow, at offset: Int = 0) throws -> User {
        guard let id = row[offset].uuidValue, let name = row[offset + 1].string, let admin = row[offset + 2].int,
            let created = row[offset + 3].double
        else { throw StoreError.corrupt("a user can't be read") }
        return User(id: id, name: name, isAdmin: admin != 0, createdAt: Date(timeIntervalSince1970: created))
    }

    private func translatingConstraints<T>(
        unique: AccountStoreError, foreignKey: AccountStoreError, _ body: () async throws -> T
    ) async throws -> T {
        do {
            return try await body()
        } catch SQLConstraintViolation.unique {
            throw unique
        } catch SQLConstraintViolation.foreignKey {
            throw foreignKey
        }
    }

    // MARK: Users

    public func addUser(_ user: User, passwordHash: String) async throws {
        try await translatingConstraints(unique: .nameTaken(user.name), foreignKey: .unknownUser) {
            try await database.write(
                SQLStatement(
                    """
                    INSERT INTO app_user (id, name, name_key, password_hash, is_admin, created_at, password_changed_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?)
                    """,
                    [
                        .uuid(user.id), .text(user.name), .text(User.nameKey(user.name)), .text(passwordHash),
                        .integer(user.isAdmin ? 1 : 0), .real(user.createdAt.timeIntervalSince1970),
                        .real(user.createdAt.timeIntervalSince1970),
                    ]))
        }
    }

    public func user(named name: String) async throws -> StoredUser? {
        let key = User.nameKey(name)
        guard !key.isEmpty,
            let row = try await database.read(
                SQLStatement(
                    "SELECT \(Self.userColumns), u.password_hash, u.password_changed_at FROM app_user u WHERE u.name_key = ?",
                    [.text(key)])
            ).first
        else { return nil }
        guard let hash = row[4].string, let changed = row[5].double else {
            throw StoreError.corrupt("user \(name) can't be read")
        }
        return StoredUser(
            user: try Self.user(row), passwordHash: hash, passwordChangedAt: Date(timeIntervalSince1970: changed))
    }

    public func user(id: UUID) async throws -> User? {
        try await database.read(SQLStatement("SELECT \(Self.userColumns) FROM app_user u WHERE u.id = ?", [.uuid(id)]))
            .first.map { try Self.user($0) }
    }

    public func users() async throws -> [User] {
        try await database.read(
            SQLStatement(
                "SELECT \(Self.userColumns) FROM app_user u WHERE u.id <> ? ORDER BY u.name_key",
                [
                    .uuid(LocalUser.id)
                ])
        ).map { try Self.user($0) }
    }

    public func setPasswordHash(_ hash: String, of id: UUID, at date: Date) async throws {
        // Other servers' live connections of that user's sessions check again (.resync).
        try await database.write(
            [
                SQLStatement(
                    "UPDATE app_user SET password_hash = ?, password_changed_at = ? WHERE id = ? AND id <> ? RETURNING 1",
                    [.text(hash), .real(date.timeIntervalSince1970), .uuid(id), .uuid(LocalUser.id)],
                    errorIfNoRow: AccountStoreError.unknownUser),
                SQLStatement("DELETE FROM user_session WHERE user_id = ?", [.uuid(id)]),
                SharedStatements.revocation,
            ] + database.dialect.announcing(.resync))
    }

    public func removeUser(id: UUID) async throws -> Bool {
        guard id != LocalUser.id else { return false }
        let rows = try await database.write(
            [
                // Their documents go, and their ids are never used again (as ``SQLDocumentStore``'s delete).
                SQLStatement(
                    """
                    INSERT INTO deleted_document (id, deleted_at)
                    SELECT document_id, ? FROM document_member WHERE user_id = ? AND role = 'owner'
                    ON CONFLICT DO NOTHING
                    """, [.real(Date().timeIntervalSince1970), .uuid(id)]),
                SQLStatement(
                    "DELETE FROM document WHERE id IN (SELECT document_id FROM document_member WHERE user_id = ? AND role = 'owner')",
                    [.uuid(id)]),
                SQLStatement("DELETE FROM app_user WHERE id = ? RETURNING 1", [.uuid(id)]),
                SharedStatements.revocation,
            ] + database.dialect.announcing(.resync))
        return !rows[2].isEmpty
    }

    public func preferences(of userID: UUID) async throws -> UserPreferences {
        guard
            let json = try await database.read(
                SQLStatement("SELECT preferences FROM user_preference WHERE user_id = ?", [.uuid(userID)])
            ).first?[0].string
        else { return UserPreferences() }
        do {
            return try JSONDecoder().decode(UserPreferences.self, from: Data(json.utf8))
        } catch {
            throw StoreError.corrupt("the preferences of user \(userID) can't be read")
        }
    }

    public func setPreferences(_ preferences: UserPreferences, of userID: UUID) async throws {
        let json = String(decoding: try JSONEncoder().encode(preferences), as: UTF8.self)
        try await translatingConstraints(unique: .unknownUser, foreignKey: .unknownUser) {
            try await database.write(
                SQLStatement(
                    """
                    INSERT INTO user_preference (user_id, preferences) VALUES (?, ?)
                    ON CONFLICT (user_id) DO UPDATE SET preferences = excluded.preferences
                    """, [.uuid(userID), .text(json)]))
        }
    }

    public func transferData(from: UUID, to: UUID) async throws -> Int {
        guard from != to else { throw AccountStoreError.unknownUser }
        let exists = "SELECT 1 FROM app_user WHERE id = ?"
        let rows = try await database.write([
            SQLStatement(exists, [.uuid(from)], errorIfNoRow: AccountStoreError.unknownUser),
            SQLStatement(exists, [.uuid(to)], errorIfNoRow: AccountStoreError.unknownUser),
            // `to` may already have a lesser role on some of them: it gives way to ownership.
            SQLStatement(
                """
                DELETE FROM document_member WHERE user_id = ? AND document_id IN
                    (SELECT document_id FROM document_member WHERE user_id = ? AND role = 'owner')
                """, [.uuid(to), .uuid(from)]),
            SQLStatement(
                "UPDATE document_member SET user_id = ? WHERE user_id = ? AND role = 'owner' RETURNING document_id",
                [.uuid(to), .uuid(from)]),
            SQLStatement(
                """
                UPDATE user_palette SET owner_id = ?
                WHERE owner_id = ? AND NOT EXISTS (SELECT 1 FROM user_palette WHERE owner_id = ?)
                """, [.uuid(to), .uuid(from), .uuid(to)]),
            SharedStatements.revocation,
        ])
        return rows[3].count
    }

    // MARK: Sessions

    public func createSession(tokenHash: String, userID: UUID, at date: Date) async throws {
        try await translatingConstraints(unique: .unknownUser, foreignKey: .unknownUser) {
            try await database.write(
                SQLStatement(
                    "INSERT INTO user_session (token_hash, user_id, created_at, last_seen_at) VALUES (?, ?, ?, ?)",
                    [
                        .text(tokenHash), .uuid(userID), .real(date.timeIntervalSince1970),
                        .real(date.timeIntervalSince1970),
                    ]
                ))
        }
    }

    public func session(tokenHash: String) async throws -> StoredSession? {
        guard
            let row = try await database.read(
                SQLStatement(
                    """
                    SELECT \(Self.userColumns), s.created_at, s.last_seen_at
                    FROM user_session s JOIN app_user u ON u.id = s.user_id WHERE s.token_hash = ?
                    """, [.text(tokenHash)])
            ).first
        else { return nil }
        guard let created = row[4].double, let lastSeen = row[5].double else {
            throw StoreError.corrupt("a session can't be read")
        }
        return StoredSession(
            user: try Self.user(row), createdAt: Date(timeIntervalSince1970: created),
            lastSeenAt: Date(timeIntervalSince1970: lastSeen))
    }

    public func touchSession(tokenHash: String, at date: Date) async throws {
        try await database.write(
            SQLStatement(
                "UPDATE user_session SET last_seen_at = ? WHERE token_hash = ?",
                [.real(date.timeIntervalSince1970), .text(tokenHash)]))
    }

    public func deleteSession(tokenHash: String) async throws {
        try await database.write([
            SQLStatement("DELETE FROM user_session WHERE token_hash = ?", [.text(tokenHash)]),
            SharedStatements.revocation,
        ])
    }

    public func deleteSessions(idleSince date: Date) async throws -> Int {
        try await database.write(
            SQLStatement(
                "DELETE FROM user_session WHERE last_seen_at < ? RETURNING 1", [.real(date.timeIntervalSince1970)])
        ).count
    }

    public func recordSignInFailure(subjects: [String], at date: Date) async throws {
        guard !subjects.isEmpty else { return }
        try await database.write(
            subjects.map {
                SQLStatement(
                    "INSERT INTO sign_in_failure (subject, at) VALUES (?, ?)",
                    [.text($0), .real(date.timeIntervalSince1970)])
            })
    }

    public func signInFailures(subject: String, since date: Date) async throws -> [Date] {
        try await database.read(
            SQLStatement(
                "SELECT at FROM sign_in_failure WHERE subject = ? AND at >= ? ORDER BY at",
                [.text(subject), .real(date.timeIntervalSince1970)])
        ).compactMap { $0[0].double.map(Date.init(timeIntervalSince1970:)) }
    }

    public func lastSignInFailure(subject: String) async throws -> Date? {
        try await database.read(
            SQLStatement("SELECT MAX(at) FROM sign_in_failure WHERE subject = ?", [.text(subject)])
        ).first?[0].double.map(Date.init(timeIntervalSince1970:))
    }

    public func forgetSignInFailures(before date: Date) async throws {
        try await database.write(
            SQLStatement("DELETE FROM sign_in_failure WHERE at < ?", [.real(date.timeIntervalSince1970)]))
    }

    // MARK: Tokens

    private static let tokenColumns = "t.id, t.user_id, t.name, t.created_at, t.last_used_at"

    private static func token(_ row: SQLRow) throws -> APIToken {
        guard let id = row[0].uuidValue, let userID = row[1].uuidValue, let name = row[2].string,
            let created = row[3].double
        else { throw StoreError.corrupt("a token can't be read") }
        return APIToken(
            id: id, userID: userID, name: name, createdAt: Date(timeIntervalSince1970: created),
            lastUsedAt: row[4].double.map(Date.init(timeIntervalSince1970:)))
    }

    public func createToken(_ token: APIToken, hash: String) async throws {
        try await translatingConstraints(unique: .unknownUser, foreignKey: .unknownUser) {
            try await database.write(
                SQLStatement(
                    "INSERT INTO api_token (id, token_hash, user_id, name, created_at, last_used_at) VALUES (?, ?, ?, ?, ?, ?)",
                    [
                        .uuid(token.id), .text(hash), .uuid(token.userID), .text(token.name),
                        .real(token.createdAt.timeIntervalSince1970),
                        .optional(token.lastUsedAt?.timeIntervalSince1970),
                    ]))
        }
    }

    public func token(hash: String) async throws -> (token: APIToken, user: User)? {
        guard
            let row = try await database.read(
                SQLStatement(
                    """
                    SELECT \(Self.tokenColumns), \(Self.userColumns)
                    FROM api_token t JOIN app_user u ON u.id = t.user_id WHERE t.token_hash = ?
                    """, [.text(hash)])
            ).first
        else { return nil }
        return (try Self.token(row), try Self.user(row, at: 5))
    }

    public func tokens(of userID: UUID) async throws -> [APIToken] {
        try await database.read(
            SQLStatement(
                "SELECT \(Self.tokenColumns) FROM api_token t WHERE t.user_id = ? ORDER BY t.created_at, t.id",
                [.uuid(userID)])
        ).map(Self.token)
    }

    public func touchToken(id: UUID, at date: Date) async throws {
        try await database.write(
            SQLStatement(
                "UPDATE api_token SET last_used_at = ? WHERE id = ?", [.real(date.timeIntervalSince1970), .uuid(id)]))
    }

    public func revokeToken(id: UUID) async throws -> Bool {
        let rows = try await database.write(
            [SQLStatement("DELETE FROM api_token WHERE id = ? RETURNING 1", [.uuid(id)]), SharedStatements.revocation]
                + database.dialect.announcing(.resync))
        return !rows[0].isEmpty
    }

    // MARK: Document members

    public func role(of userID: UUID, on documentID: UUID) async throws -> DocumentRole? {
        try await database.read(
            SQLStatement(
                "SELECT role FROM document_member WHERE document_id = ? AND user_id = ?",
                [.uuid(documentID), .uuid(userID)])
        ).first.flatMap { $0[0].string.flatMap(DocumentRole.init(rawValue:)) }
    }

    public func members(of documentID: UUID) async throws -> [DocumentMember] {
        try await database.read(
            SQLStatement(
                """
                SELECT \(Self.userColumns), m.role FROM document_member m JOIN app_user u ON u.id = m.user_id
                WHERE m.document_id = ?
                """, [.uuid(documentID)])
        ).map { row in
            guard let role = row[4].string.flatMap(DocumentRole.init(rawValue:)) else {
                throw StoreError.corrupt("a member of document \(documentID) can't be read")
            }
            return DocumentMember(user: try Self.user(row), role: role)
        }.sorted {
            ($0.role == .owner ? 0 : 1, User.nameKey($0.user.name)) < (
                $1.role == .owner ? 0 : 1, User.nameKey($1.user.name)
            )
        }
    }

    public func setRole(_ role: DocumentRole?, of userID: UUID, on documentID: UUID) async throws {
        guard role != .owner else { throw AccountStoreError.ownershipIsNotShared }
        let announce = database.dialect.announcing(.membersChanged(documentID))
        var statements = [
            SQLStatement(
                "SELECT 1 FROM document WHERE id = ?", [.uuid(documentID)],
                errorIfNoRow: AccountStoreError.unknownDocument),
            SQLStatement(
                "SELECT 1 FROM app_user WHERE id = ?", [.uuid(userID)], errorIfNoRow: AccountStoreError.unknownUser),
        ]
        if let role {
            statements.append(
                SQLStatement(
                    """
                    INSERT INTO document_member (document_id, user_id, role) VALUES (?, ?, ?)
                    ON CONFLICT (document_id, user_id) DO UPDATE SET role = excluded.role
                    WHERE document_member.role <> 'owner'
                    """, [.uuid(documentID), .uuid(userID), .text(role.rawValue)]))
        } else {
            statements.append(
                SQLStatement(
                    "DELETE FROM document_member WHERE document_id = ? AND user_id = ? AND role <> 'owner'",
                    [.uuid(documentID), .uuid(userID)]))
        }
        try await database.write(statements + [SharedStatements.revocation] + announce)
    }

    public func documents(of userID: UUID) async throws -> [UUID: DocumentRole] {
        var result: [UUID: DocumentRole] = [:]
        for row in try await database.read(
            SQLStatement("SELECT document_id, role FROM document_member WHERE user_id = ?", [.uuid(userID)]))
        {
            guard let id = row[0].uuidValue, let role = row[1].string.flatMap(DocumentRole.init(rawValue:)) else {
                throw StoreError.corrupt("a membership of user \(userID) can't be read")
            }
            result[id] = role
        }
        return result
    }

    // MARK: Share links

    private static func link(_ row: SQLRow) throws -> ShareLink {
        guard let id = row[0].uuidValue, let documentID = row[1].uuidValue, let token = row[2].string,
            let role = row[3].string.flatMap(ShareLink.Role.init(rawValue:)), let created = row[4].double
        else { throw StoreError.corrupt("a share link can't be read") }
        return ShareLink(
            id: id, documentID: documentID, token: token, role: role, createdAt: Date(timeIntervalSince1970: created))
    }

    public func createLink(_ link: ShareLink) async throws {
        try await translatingConstraints(unique: .unknownDocument, foreignKey: .unknownDocument) {
            try await database.write(
                SQLStatement(
                    "INSERT INTO share_link (id, document_id, token, role, created_at) VALUES (?, ?, ?, ?, ?)",
                    [
                        .uuid(link.id), .uuid(link.documentID), .text(link.token), .text(link.role.rawValue),
                        .real(link.createdAt.timeIntervalSince1970),
                    ]))
        }
    }

    public func links(of documentID: UUID) async throws -> [ShareLink] {
        try await database.read(
            SQLStatement(
                "SELECT id, document_id, token, role, created_at FROM share_link WHERE document_id = ? ORDER BY created_at, id",
                [.uuid(documentID)])
        ).map(Self.link)
    }

    public func link(token: String) async throws -> ShareLink? {
        try await database.read(
            SQLStatement(
                "SELECT id, document_id, token, role, created_at FROM share_link WHERE token = ?", [.text(token)])
        ).first.map(Self.link)
    }

    public func links(tokens: [String]) async throws -> [ShareLink] {
        guard !tokens.isEmpty else { return [] }
        let placeholders = Array(repeating: "?", count: tokens.count).joined(separator: ", ")
        return try await database.read(
            SQLStatement(
                "SELECT id, document_id, token, role, created_at FROM share_link WHERE token IN (\(placeholders))",
                tokens.map(SQLValue.text))
        ).map(Self.link)
    }

    public func revokeLink(id: UUID, of documentID: UUID) async throws -> Bool {
        do {
            try await database.write(
                [
                    SQLStatement(
                        "DELETE FROM share_link WHERE id = ? AND document_id = ? RETURNING 1",
                        [.uuid(id), .uuid(documentID)],
                        errorIfNoRow: AccountStoreError.unknownDocument),
                    SharedStatements.revocation,
                ] + database.dialect.announcing(.linkRevoked(id)))
            return true
        } catch AccountStoreError.unknownDocument {
            return false
        }
    }

    public func grantLink(_ linkID: UUID, toBrowser browserHash: String, at date: Date, keeping limit: Int)
        async throws
    {
        try await translatingConstraints(unique: .unknownDocument, foreignKey: .unknownDocument) {
            try await database.write([
                SQLStatement(
                    """
                    INSERT INTO browser_link (browser_hash, link_id, granted_at) VALUES (?, ?, ?)
                    ON CONFLICT (browser_hash, link_id) DO UPDATE SET granted_at = excluded.granted_at
                    """, [.text(browserHash), .uuid(linkID), .real(date.timeIntervalSince1970)]),
                SQLStatement(
                    """
                    DELETE FROM browser_link WHERE browser_hash = ? AND link_id NOT IN (
                        SELECT link_id FROM browser_link WHERE browser_hash = ?
                        ORDER BY granted_at DESC, link_id LIMIT ?)
                    """, [.text(browserHash), .text(browserHash), .integer(max(1, limit))]),
            ])
        }
    }

    public func links(browser browserHash: String) async throws -> [ShareLink] {
        try await database.read(
            SQLStatement(
                """
                SELECT l.id, l.document_id, l.token, l.role, l.created_at
                FROM browser_link b JOIN share_link l ON l.id = b.link_id WHERE b.browser_hash = ?
                ORDER BY b.granted_at, l.id
                """, [.text(browserHash)])
        ).map(Self.link)
    }

    // MARK: Revocations

    public func revocations() async throws -> Int {
        try await database.read(SQLStatement("SELECT total FROM access_revocation WHERE id = 1")).first?[0].int ?? 0
    }
}
