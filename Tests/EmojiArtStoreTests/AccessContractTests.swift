import EmojiArtKit
import EmojiArtStore
import Foundation
import Testing

/// Issue #33's store side, on every store: who may read an image, the links a browser opened,
/// the count of revocations, and the latest failure of a subject.
@Suite("Image readers, browser links and revocations keep the contract")
struct AccessContractTests {
    let date = Date(timeIntervalSince1970: 1_700_000_000)

    func document(_ stores: Stores, owner: UUID) async throws -> UUID {
        let record = StoredDocument(
            id: UUID(), document: try EmojiArtDocument(title: "Doc"), version: 0, createdAt: date, updatedAt: date)
        try await stores.documents.createDocument(record, owner: owner)
        return record.id
    }

    func user(_ stores: Stores, _ name: String) async throws -> UUID {
        let user = User(name: name, createdAt: date)
        try await stores.users.addUser(user, passwordHash: "x")
        return user.id
    }

    static let png =
        (try? Data(
            contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent("Fixtures/images/red-7x5.png"))) ?? Data()

    @Test(arguments: StoreKind.available)
    func anImageIsReadByThePeopleOfTheDocumentsThatUseItItsUploaderAndPlayers(kind: StoreKind) async throws {
        let stores = try await kind.makeStores()
        let (ada, bob) = (try await user(stores, "ada"), try await user(stores, "bob"))
        let doc = try await document(stores, owner: ada)
        let image = try StoredImage(data: Self.png)
        try await stores.images.saveImage(image)
        let nobody = ImageReader(userID: nil, linkedDocuments: [])
        func reads(_ reader: ImageReader) async throws -> Bool {
            try await stores.images.mayRead(imageID: image.id, reader)
        }
        #expect(try await !reads(ImageReader(userID: ada, linkedDocuments: [])), "stored, but used by nothing yet")
        try await stores.images.recordImageUse(image.id, by: .document(doc))
        try await stores.images.recordImageUse(image.id, by: .document(doc))
        #expect(try await reads(ImageReader(userID: ada, linkedDocuments: [])))
        #expect(try await !reads(ImageReader(userID: bob, linkedDocuments: [])))
        #expect(try await !reads(nobody))
        #expect(try await reads(ImageReader(userID: nil, linkedDocuments: [UUID(), doc])), "a link to its document")
        try await stores.shares.setRole(.viewer, of: bob, on: doc)
        #expect(try await reads(ImageReader(userID: bob, linkedDocuments: [])))
        try await stores.shares.setRole(nil, of: bob, on: doc)
        #expect(try await !reads(ImageReader(userID: bob, linkedDocuments: [])))
        try await stores.images.recordImageUse(image.id, by: .uploader(bob))
        #expect(try await reads(ImageReader(userID: bob, linkedDocuments: [])))
        let eve = try await user(stores, "eve")
        #expect(try await !reads(ImageReader(userID: eve, linkedDocuments: [])))
        try await stores.images.recordImageUse(image.id, by: .game)
        #expect(try await reads(ImageReader(userID: eve, linkedDocuments: [])), "anyone with an account plays")
        #expect(try await !reads(nobody))
        // An image that isn't stored is read by no one, whatever claims to use it.
        try await stores.images.recordImageUse(String(repeating: "a", count: 64), by: .uploader(ada))
        #expect(
            try await !stores.images.mayRead(
                imageID: String(repeating: "a", count: 64), ImageReader(userID: ada, linkedDocuments: [])))
    }

    @Test(arguments: StoreKind.available)
    func aBrowserKeepsTheLinksItOpenedUntilTheyAreRevoked(kind: StoreKind) async throws {
        let stores = try await kind.makeStores()
        let ada = try await user(stores, "ada")
        let (first, second) = (try await document(stores, owner: ada), try await document(stores, owner: ada))
        let view = ShareLink(documentID: first, token: "view-token", role: .view, createdAt: date)
        let edit = ShareLink(documentID: second, token: "edit-token", role: .edit, createdAt: date)
        try await stores.links.createLink(view)
        try await stores.links.createLink(edit)
        try await stores.links.grantLink(view.id, toBrowser: "browser-a", at: date, keeping: 10)
        try await stores.links.grantLink(edit.id, toBrowser: "browser-a", at: date + 1, keeping: 10)
        try await stores.links.grantLink(view.id, toBrowser: "browser-a", at: date + 2, keeping: 10)
        #expect(try await stores.links.links(browser: "browser-a") == [edit, view], "oldest grant first, once each")
        #expect(try await stores.links.links(browser: "browser-b").isEmpty)
        await #expect(throws: AccountStoreError.unknownDocument) {
            try await stores.links.grantLink(UUID(), toBrowser: "browser-a", at: date, keeping: 10)
        }
        #expect(try await stores.links.revokeLink(id: view.id, of: first))
        #expect(try await stores.links.links(browser: "browser-a") == [edit])
        #expect(try await stores.documents.deleteDocument(id: second))
        #expect(try await stores.links.links(browser: "browser-a").isEmpty)
    }

    @Test(arguments: StoreKind.available)
    func aBrowserKeepsItsNewestLinksOnly(kind: StoreKind) async throws {
        let stores = try await kind.makeStores()
        let doc = try await document(stores, owner: LocalUser.id)
        var links: [ShareLink] = []
        for index in 0..<8 {
            let link = ShareLink(documentID: doc, token: "token-\(index)", role: .view, createdAt: date)
            try await stores.links.createLink(link)
            try await stores.links.grantLink(link.id, toBrowser: "b", at: date + Double(index), keeping: 5)
            links.append(link)
        }
        #expect(try await stores.links.links(browser: "b") == Array(links.suffix(5)))
        #expect(LinkStoreLimits.linksPerBrowser >= 500, "enough that no one's are pushed out by use")
    }

    @Test(arguments: StoreKind.available)
    func everyRevocationIsCounted(kind: StoreKind) async throws {
        let stores = try await kind.makeStores()
        let ada = try await user(stores, "ada")
        let bob = try await user(stores, "bob")
        let doc = try await document(stores, owner: ada)
        var count = try await stores.revocations.revocations()
        func expectCounted(_ what: String, _ change: () async throws -> Void) async throws {
            try await change()
            let now = try await stores.revocations.revocations()
            #expect(now > count, "\(what)")
            count = now
        }
        try await stores.sessions.createSession(tokenHash: "s", userID: bob, at: date)
        try await expectCounted("sign-out") { try await stores.sessions.deleteSession(tokenHash: "s") }
        try await expectCounted("new password") { try await stores.users.setPasswordHash("y", of: bob, at: date) }
        let token = APIToken(userID: bob, name: "script", createdAt: date)
        try await stores.tokens.createToken(token, hash: "t")
        try await expectCounted("token") { _ = try await stores.tokens.revokeToken(id: token.id) }
        try await stores.shares.setRole(.editor, of: bob, on: doc)
        try await expectCounted("member") { try await stores.shares.setRole(.viewer, of: bob, on: doc) }
        try await expectCounted("member removed") { try await stores.shares.setRole(nil, of: bob, on: doc) }
        let link = ShareLink(documentID: doc, token: "l", role: .edit, createdAt: date)
        try await stores.links.createLink(link)
        try await expectCounted("link") { _ = try await stores.links.revokeLink(id: link.id, of: doc) }
        try await expectCounted("user removed") { _ = try await stores.users.removeUser(id: bob) }
        // Making things revokes nothing.
        try await stores.sessions.createSession(tokenHash: "s2", userID: ada, at: date)
        #expect(try await stores.revocations.revocations() == count)
    }

    @Test(arguments: StoreKind.available)
    func theLatestFailureOfASubjectIsKnown(kind: StoreKind) async throws {
        let stores = try await kind.makeStores()
        #expect(try await stores.sessions.lastSignInFailure(subject: "name:ada from:x") == nil)
        try await stores.sessions.recordSignInFailure(subjects: ["name:ada from:x"], at: date)
        try await stores.sessions.recordSignInFailure(subjects: ["name:ada from:x", "address:x"], at: date + 5)
        #expect(try await stores.sessions.lastSignInFailure(subject: "name:ada from:x") == date + 5)
        #expect(try await stores.sessions.lastSignInFailure(subject: "address:y") == nil)
    }
}
