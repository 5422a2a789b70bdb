import EmojiArtKit
import EmojiArtStore
import Foundation
import Testing

/// The contract of the account aggregates — users, sessions, tokens, members, links — run
/// against every store: memory, SQLite and PostgreSQL, whose SQL is shared.
@Suite("Account stores keep the contract")
struct AccountStoreContractTests {
    let date = Date(timeIntervalSince1970: 1_700_000_000)

    func document(_ stores: Stores, owner: UUID = LocalUser.id, title: String = "Doc") async throws -> UUID {
        let record = StoredDocument(
            id: UUID(), document: try EmojiArtDocument(title: title), version: 0, createdAt: date, updatedAt: date)
        try await stores.documents.createDocument(record, owner: owner)
        return record.id
    }

    @Test(arguments: StoreKind.available)
    func usersHaveUniqueNamesIgnoringCaseAndTheLocalUserIsNeverListed(kind: StoreKind) async throws {
        let stores = try await kind.makeStores()
        #expect(try await stores.users.users().isEmpty)
        #expect(try await stores.users.user(id: LocalUser.id)?.name == LocalUser.name)
        #expect(try await stores.users.user(named: LocalUser.name) == nil, "no one signs in as the local user")
        #expect(try await stores.users.user(named: "") == nil)

        let ada = User(name: "Ada", isAdmin: true, createdAt: date)
        try await stores.users.addUser(ada, passwordHash: "$2b$12$hash")
        await #expect(throws: AccountStoreError.nameTaken("ADA")) {
            try await stores.users.addUser(User(name: "ADA", createdAt: date), passwordHash: "x")
        }
        let stored = try #require(try await stores.users.user(named: "aDa"))
        #expect(stored.user == ada && stored.passwordHash == "$2b$12$hash" && stored.passwordChangedAt == date)
        try await stores.users.addUser(User(name: "bob", createdAt: date), passwordHash: "y")
        #expect(try await stores.users.users().map(\.name) == ["Ada", "bob"])
        #expect(try await stores.users.user(id: ada.id) == ada)
    }

    @Test(arguments: StoreKind.available)
    func preferencesAreKeptPerUserAndGoWithThem(kind: StoreKind) async throws {
        let stores = try await kind.makeStores()
        let ada = User(name: "ada", createdAt: date)
        let bob = User(name: "bob", createdAt: date)
        try await stores.users.addUser(ada, passwordHash: "x")
        try await stores.users.addUser(bob, passwordHash: "y")
        #expect(try await stores.users.preferences(of: ada.id) == UserPreferences())
        let chosen = UserPreferences(skinTone: 4, recentEmojis: ["🦊", "👋🏾", "🇫🇷"])
        try await stores.users.setPreferences(chosen, of: ada.id)
        try await stores.users.setPreferences(UserPreferences(skinTone: 1), of: bob.id)
        #expect(try await stores.users.preferences(of: ada.id) == chosen)
        let changed = UserPreferences(skinTone: 0, recentEmojis: ["🌴"])
        try await stores.users.setPreferences(changed, of: ada.id)
        #expect(try await stores.users.preferences(of: ada.id) == changed)
        #expect(try await stores.users.preferences(of: bob.id).skinTone == 1)
        await #expect(throws: AccountStoreError.unknownUser) {
            try await stores.users.setPreferences(chosen, of: UUID())
        }
        #expect(try await stores.users.removeUser(id: ada.id))
        #expect(try await stores.users.preferences(of: ada.id) == UserPreferences())
    }

    @Test(arguments: StoreKind.available)
    func aNewPasswordEndsEverySessionOfThatUserOnly(kind: StoreKind) async throws {
        let stores = try await kind.makeStores()
        let (ada, bob) = (User(name: "ada", createdAt: date), User(name: "bob", createdAt: date))
        try await stores.users.addUser(ada, passwordHash: "a")
        try await stores.users.addUser(bob, passwordHash: "b")
        try await stores.sessions.createSession(tokenHash: "s1", userID: ada.id, at: date)
        try await stores.sessions.createSession(tokenHash: "s2", userID: ada.id, at: date)
        try await stores.sessions.createSession(tokenHash: "s3", userID: bob.id, at: date)
        await #expect(throws: AccountStoreError.unknownUser) {
            try await stores.sessions.createSession(tokenHash: "s4", userID: UUID(), at: date)
        }
        let session = try #require(try await stores.sessions.session(tokenHash: "s1"))
        #expect(session.user == ada && session.createdAt == date && session.lastSeenAt == date)
        try await stores.sessions.touchSession(tokenHash: "s1", at: date + 60)
        #expect(try await stores.sessions.session(tokenHash: "s1")?.lastSeenAt == date + 60)

        let later = date + 3600
        try await stores.users.setPasswordHash("a2", of: ada.id, at: later)
        #expect(try await stores.sessions.session(tokenHash: "s1") == nil)
        #expect(try await stores.sessions.session(tokenHash: "s2") == nil)
        #expect(try await stores.sessions.session(tokenHash: "s3")?.user == bob)
        let changed = try #require(try await stores.users.user(named: "ada"))
        #expect(changed.passwordHash == "a2" && changed.passwordChangedAt == later)
        await #expect(throws: AccountStoreError.unknownUser) {
            try await stores.users.setPasswordHash("x", of: UUID(), at: later)
        }
        await #expect(throws: AccountStoreError.unknownUser) {
            try await stores.users.setPasswordHash("x", of: LocalUser.id, at: later)
        }

        try await stores.sessions.deleteSession(tokenHash: "s3")
        try await stores.sessions.deleteSession(tokenHash: "s3")
        #expect(try await stores.sessions.session(tokenHash: "s3") == nil)
    }

    @Test(arguments: StoreKind.available)
    func idleSessionsExpireAndOldFailuresAreForgotten(kind: StoreKind) async throws {
        let stores = try await kind.makeStores()
        let ada = User(name: "ada", createdAt: date)
        try await stores.users.addUser(ada, passwordHash: "a")
        try await stores.sessions.createSession(tokenHash: "old", userID: ada.id, at: date)
        try await stores.sessions.createSession(tokenHash: "new", userID: ada.id, at: date + 100)
        #expect(try await stores.sessions.deleteSessions(idleSince: date + 50) == 1)
        #expect(try await stores.sessions.session(tokenHash: "old") == nil)
        #expect(try await stores.sessions.session(tokenHash: "new") != nil)

        try await stores.sessions.recordSignInFailure(subjects: ["name:ada", "address:10.0.0.1"], at: date)
        try await stores.sessions.recordSignInFailure(subjects: ["name:ada"], at: date + 10)
        // Oldest first, to the second at least: a rate limit replays them in order.
        let times = try await stores.sessions.signInFailures(subject: "name:ada", since: date)
        #expect(times.count == 2)
        #expect(times.map { $0.timeIntervalSince(date).rounded() } == [0, 10])
        #expect(try await stores.sessions.signInFailures(subject: "name:ada", since: date + 5).count == 1)
        #expect(try await stores.sessions.signInFailures(subject: "address:10.0.0.1", since: date).count == 1)
        #expect(try await stores.sessions.signInFailures(subject: "name:bob", since: date).count == 0)
        try await stores.sessions.forgetSignInFailures(before: date + 5)
        #expect(try await stores.sessions.signInFailures(subject: "name:ada", since: .distantPast).count == 1)
    }

    @Test(arguments: StoreKind.available)
    func tokensAreFoundByHashListedAndRevoked(kind: StoreKind) async throws {
        let stores = try await kind.makeStores()
        let ada = User(name: "ada", createdAt: date)
        try await stores.users.addUser(ada, passwordHash: "a")
        let first = APIToken(userID: ada.id, name: "backup", createdAt: date)
        let second = APIToken(userID: ada.id, name: "cli", createdAt: date + 1)
        try await stores.tokens.createToken(first, hash: "h1")
        try await stores.tokens.createToken(second, hash: "h2")
        await #expect(throws: AccountStoreError.unknownUser) {
            try await stores.tokens.createToken(APIToken(userID: UUID(), name: "x", createdAt: date), hash: "h3")
        }
        let found = try #require(try await stores.tokens.token(hash: "h1"))
        #expect(found.token == first && found.user == ada)
        #expect(try await stores.tokens.token(hash: "nope") == nil)
        try await stores.tokens.touchToken(id: first.id, at: date + 5)
        #expect(try await stores.tokens.token(hash: "h1")?.token.lastUsedAt == date + 5)
        #expect(try await stores.tokens.tokens(of: ada.id).map(\.name) == ["backup", "cli"])
        #expect(try await stores.tokens.revokeToken(id: first.id))
        #expect(try await !stores.tokens.revokeToken(id: first.id))
        #expect(try await stores.tokens.token(hash: "h1") == nil)
        #expect(try await stores.tokens.tokens(of: ada.id) == [second])
    }

    @Test(arguments: StoreKind.available)
    func documentsHaveAnOwnerAndAreSharedByName(kind: StoreKind) async throws {
        let stores = try await kind.makeStores()
        let (ada, bob) = (User(name: "ada", createdAt: date), User(name: "Bob", createdAt: date))
        try await stores.users.addUser(ada, passwordHash: "a")
        try await stores.users.addUser(bob, passwordHash: "b")
        let id = try await document(stores, owner: ada.id)
        await #expect(throws: AccountStoreError.unknownUser) { _ = try await document(stores, owner: UUID()) }
        #expect(try await stores.documents.listDocuments().count == 1, "a refused document is not half made")

        #expect(try await stores.shares.role(of: ada.id, on: id) == .owner)
        #expect(try await stores.shares.role(of: bob.id, on: id) == nil)
        try await stores.shares.setRole(.viewer, of: bob.id, on: id)
        #expect(try await stores.shares.role(of: bob.id, on: id) == .viewer)
        try await stores.shares.setRole(.editor, of: bob.id, on: id)
        #expect(
            try await stores.shares.members(of: id).map { [$0.user.name, $0.role.rawValue] } == [
                ["ada", "owner"], ["Bob", "editor"],
            ])
        #expect(try await stores.shares.documents(of: bob.id) == [id: .editor])
        // The owner stays the owner, whatever is asked.
        try await stores.shares.setRole(.viewer, of: ada.id, on: id)
        try await stores.shares.setRole(nil, of: ada.id, on: id)
        #expect(try await stores.shares.role(of: ada.id, on: id) == .owner)
        await #expect(throws: AccountStoreError.ownershipIsNotShared) {
            try await stores.shares.setRole(.owner, of: bob.id, on: id)
        }
        await #expect(throws: AccountStoreError.unknownUser) {
            try await stores.shares.setRole(.viewer, of: UUID(), on: id)
        }
        await #expect(throws: AccountStoreError.unknownDocument) {
            try await stores.shares.setRole(.viewer, of: bob.id, on: UUID())
        }
        try await stores.shares.setRole(nil, of: bob.id, on: id)
        #expect(try await stores.shares.documents(of: bob.id).isEmpty)

        try await stores.shares.setRole(.viewer, of: bob.id, on: id)
        #expect(try await stores.documents.deleteDocument(id: id))
        #expect(try await stores.shares.documents(of: bob.id).isEmpty, "members go with their document")
        #expect(try await stores.shares.members(of: id).isEmpty)
    }

    @Test(arguments: StoreKind.available)
    func linksAreFoundByTokenAndRevokedAtOnce(kind: StoreKind) async throws {
        let stores = try await kind.makeStores()
        let id = try await document(stores)
        let other = try await document(stores)
        let view = ShareLink(documentID: id, token: "view-token", role: .view, createdAt: date)
        let edit = ShareLink(documentID: id, token: "edit-token", role: .edit, createdAt: date + 1)
        try await stores.links.createLink(view)
        try await stores.links.createLink(edit)
        await #expect(throws: AccountStoreError.unknownDocument) {
            try await stores.links.createLink(ShareLink(documentID: UUID(), token: "t", role: .view, createdAt: date))
        }
        #expect(try await stores.links.link(token: "view-token") == view)
        #expect(try await stores.links.links(of: id) == [view, edit])
        #expect(try await stores.links.links(of: other).isEmpty)
        #expect(try await !stores.links.revokeLink(id: view.id, of: other), "a link is revoked through its document")
        #expect(try await stores.links.revokeLink(id: view.id, of: id))
        #expect(try await stores.links.link(token: "view-token") == nil)
        #expect(try await !stores.links.revokeLink(id: view.id, of: id))
        #expect(try await stores.documents.deleteDocument(id: id))
        #expect(try await stores.links.link(token: "edit-token") == nil, "links go with their document")
    }

    @Test(arguments: StoreKind.available)
    func theFirstAdminTakesOverTheLocalUsersWorkAndRemovedUsersTakeTheirsAlong(kind: StoreKind) async throws {
        let stores = try await kind.makeStores()
        let kept = try await document(stores, title: "Made before accounts")
        try await stores.palettes.savePalettes([Palette(name: "Mine", emojis: "😀")], owner: LocalUser.id)
        let admin = User(name: "admin", isAdmin: true, createdAt: date)
        try await stores.users.addUser(admin, passwordHash: "a")
        #expect(try await stores.users.transferData(from: LocalUser.id, to: admin.id) == 1)
        #expect(try await stores.shares.role(of: admin.id, on: kept) == .owner)
        #expect(try await stores.shares.role(of: LocalUser.id, on: kept) == nil)
        #expect(try await stores.palettes.loadPalettes(owner: admin.id)?.map(\.name) == ["Mine"])
        #expect(try await stores.palettes.loadPalettes(owner: LocalUser.id) == nil)
        await #expect(throws: AccountStoreError.unknownUser) {
            _ = try await stores.users.transferData(from: UUID(), to: admin.id)
        }

        let leaving = User(name: "leaving", createdAt: date)
        try await stores.users.addUser(leaving, passwordHash: "l")
        let theirs = try await document(stores, owner: leaving.id)
        try await stores.shares.setRole(.editor, of: leaving.id, on: kept)
        try await stores.sessions.createSession(tokenHash: "s", userID: leaving.id, at: date)
        try await stores.tokens.createToken(APIToken(userID: leaving.id, name: "t", createdAt: date), hash: "t")
        try await stores.palettes.savePalettes(Palette.builtIns, owner: leaving.id)
        #expect(try await stores.users.removeUser(id: leaving.id))
        #expect(try await !stores.users.removeUser(id: leaving.id))
        #expect(try await !stores.users.removeUser(id: LocalUser.id))
        #expect(try await stores.documents.loadDocument(id: theirs) == nil)
        #expect(try await stores.documents.loadDocument(id: kept) != nil)
        // Their documents' ids are never used again.
        let again = StoredDocument(
            id: theirs, document: try EmojiArtDocument(title: "Again"), version: 0, createdAt: date, updatedAt: date)
        await #expect(throws: StoreError.notFound(theirs)) {
            try await stores.documents.createDocument(again, owner: LocalUser.id)
        }
        #expect(try await stores.shares.members(of: kept).map(\.user.name) == ["admin"])
        #expect(try await stores.sessions.session(tokenHash: "s") == nil)
        #expect(try await stores.tokens.token(hash: "t") == nil)
        #expect(try await stores.palettes.loadPalettes(owner: leaving.id) == nil)
        #expect(try await stores.users.users().map(\.name) == ["admin"])
    }
}
