import EmojiArtKit
import EmojiArtStore
import Foundation
import Testing

/// The document list a page at a time (``DocumentListing``), on every store: whose documents,
/// in what order, from where, with which titles.
@Suite("The document list reads a page at a time")
struct DocumentListingContractTests {
    func document(_ stores: Stores, owner: UUID, title: String = "Doc", at seconds: Double) async throws -> UUID {
        let date = Date(timeIntervalSince1970: seconds)
        let record = StoredDocument(
            id: UUID(), document: try EmojiArtDocument(title: title), version: 0, createdAt: date, updatedAt: date)
        try await stores.documents.createDocument(record, owner: owner)
        return record.id
    }

    /// Every page of `listing`, followed from cursor to cursor.
    func walk(_ stores: Stores, _ listing: DocumentListing) async throws -> [[DocumentListPage.Entry]] {
        var listing = listing
        var pages: [[DocumentListPage.Entry]] = []
        while true {
            let page = try await stores.documents.listDocuments(listing)
            pages.append(page.entries)
            guard let next = page.next else { return pages }
            #expect(next == page.entries.last?.position)
            listing.after = next
            try #require(pages.count < 100)
        }
    }

    @Test(arguments: StoreKind.available)
    func pagesFollowOneAnotherNewestFirstWithTiesByIdAndNothingTwice(kind: StoreKind) async throws {
        let stores = try await kind.makeStores()
        var made: [(seconds: Double, id: UUID)] = []
        for index in 0..<23 {
            // Groups of three made at the same moment: a page may end inside a group.
            let seconds = 1_000 + Double(index / 3) + 0.125
            made.append((seconds, try await document(stores, owner: LocalUser.id, title: "Doc \(index)", at: seconds)))
        }
        let expected = made.sorted { ($0.seconds, $0.id.uuidString) > ($1.seconds, $1.id.uuidString) }.map(\.id)
        let pages = try await walk(stores, DocumentListing(scope: .everything, limit: 5))
        #expect(pages.map(\.count) == [5, 5, 5, 5, 3])
        #expect(pages.flatMap { $0 }.map(\.summary.id) == expected)
        #expect(pages.flatMap { $0 }.allSatisfy { $0.role == .owner })
        let whole = try await stores.documents.listDocuments(DocumentListing(scope: .everything, limit: 23))
        #expect(whole.entries.count == 23 && whole.next == nil, "a page that holds the rest is the last")
    }

    @Test(arguments: StoreKind.available)
    func aMembersListHoldsTheirOwnTheirSharedAndTheirLinkedDocumentsOnly(kind: StoreKind) async throws {
        let stores = try await kind.makeStores()
        let ada = User(name: "Ada", createdAt: Date())
        let bob = User(name: "Bob", createdAt: Date())
        try await stores.users.addUser(ada, passwordHash: "a")
        try await stores.users.addUser(bob, passwordHash: "b")
        let adas = try await document(stores, owner: ada.id, title: "Ada's", at: 1_000)
        let bobs = try await document(stores, owner: bob.id, title: "Bob's", at: 2_000)
        let shared = try await document(stores, owner: bob.id, title: "Shared with Ada", at: 3_000)
        let linked = try await document(stores, owner: bob.id, title: "Linked", at: 4_000)
        for index in 0..<10 { _ = try await document(stores, owner: bob.id, title: "Bob \(index)", at: 500) }
        try await stores.shares.setRole(.viewer, of: ada.id, on: shared)

        // The link to the shared document gives more than her membership; the other only opens.
        let links: [UUID: DocumentRole] = [shared: .editor, linked: .commenter]
        let pages = try await walk(stores, DocumentListing(scope: .visible(user: ada.id, links: links), limit: 2))
        let entries = pages.flatMap { $0 }
        #expect(entries.map(\.summary.id) == [linked, shared, adas])
        #expect(entries.map(\.role) == [.commenter, .editor, .owner])
        #expect(!entries.contains { $0.summary.id == bobs })

        let guest = try await walk(
            stores, DocumentListing(scope: .visible(user: nil, links: [linked: .viewer]), limit: 5))
        #expect(guest.flatMap { $0 }.map(\.summary.id) == [linked])
        let nobody = try await stores.documents.listDocuments(
            DocumentListing(scope: .visible(user: nil, links: [:]), limit: 5))
        #expect(nobody.entries.isEmpty && nobody.next == nil)
    }

    @Test(arguments: StoreKind.available)
    func titlesAreSearchedIgnoringCaseWithWildcardsTakenLiterally(kind: StoreKind) async throws {
        let stores = try await kind.makeStores()
        let titles = [
            "Cats at Sea", "CATalogue", "Dogs", "100% cat", "1000 cats", "snake_case", "snakeXcase", "Émile’s café",
        ]
        var ids: [String: UUID] = [:]
        for (index, title) in titles.enumerated() {
            ids[title] = try await document(stores, owner: LocalUser.id, title: title, at: 1_000 + Double(index))
        }
        func search(_ text: String, limit: Int = 10) async throws -> [String] {
            try await walk(stores, DocumentListing(scope: .everything, titleContains: text, limit: limit))
                .flatMap { $0 }.map(\.summary.title)
        }
        #expect(try await search("cat", limit: 2) == ["1000 cats", "100% cat", "CATalogue", "Cats at Sea"])
        #expect(try await search("0% c") == ["100% cat"], "a % is a percent sign")
        #expect(try await search("e_c") == ["snake_case"], "an _ is an underscore")
        #expect(try await search("horse").isEmpty)
        #expect(try await search("Émile") == ["Émile’s café"], "letters beyond A–Z match")
        #expect(try await search("É CAF") == [], "words are matched as one piece of text")
        #expect(try await search("s CAFé") == ["Émile’s café"])
        #expect(try await search("") == titles.reversed(), "no words: every title")
    }

    @Test(arguments: StoreKind.available)
    func titlesAreSearchedIgnoringAccentsAndWidthAndOldTitlesOnceFolded(kind: StoreKind) async throws {
        let stores = try await kind.makeStores()
        let uber = try await document(stores, owner: LocalUser.id, title: "Über alles", at: 1_000)
        _ = try await document(stores, owner: LocalUser.id, title: "Émile’s CAFÉ", at: 1_001)
        _ = try await document(stores, owner: LocalUser.id, title: "ｆｕｌｌ width", at: 1_002)
        let dogs = try await document(stores, owner: LocalUser.id, title: "Dogs", at: 1_003)
        func search(_ text: String) async throws -> [String] {
            try await walk(stores, DocumentListing(scope: .everything, titleContains: text, limit: 10))
                .flatMap { $0 }.map(\.summary.title)
        }
        #expect(try await search("uber") == ["Über alles"], "accents are ignored")
        #expect(try await search("ÜBER") == ["Über alles"], "beyond A–Z, case is ignored too")
        #expect(try await search("cafe") == ["Émile’s CAFÉ"])
        #expect(try await search("  émile’s   café ") == ["Émile’s CAFÉ"], "spaces as one")
        #expect(try await search("full") == ["ｆｕｌｌ width"], "full-width letters are letters")
        // A rename is searched by its new title.
        let renamed = DocumentSummary(
            id: dogs, title: "Crème brûlée", emojiCount: 0, version: 1, createdAt: Date(timeIntervalSince1970: 1_003),
            updatedAt: Date(timeIntervalSince1970: 1_004))
        try await stores.documents.append(
            [LogEntry(version: 1, edits: [.retitle("Crème brûlée")], date: Date())], to: dogs, summary: renamed)
        #expect(try await search("creme BRULEE") == ["Crème brûlée"])
        #expect(try await search("dogs").isEmpty)

        // Titles stored before they were kept folded (shared migration 8) are searched as the
        // database lower-cases them, until the maintenance folds them.
        let sql = try #require(stores.documents as? SQLDocumentStore)
        try await sql.database.write(SQLStatement("UPDATE document SET title_key = NULL"))
        #expect(try await search("alles") == ["Über alles"])
        #expect(try await search("uber").isEmpty)
        let first = try await stores.documents.foldTitles(after: nil, limit: 3)
        let foldedFirst = [
            try await search("uber"), try await search("creme"), try await search("cafe"), try await search("full"),
        ]
        #expect(foldedFirst.filter(\.isEmpty).count == 1, "3 of the 4 folded")
        let second = try await stores.documents.foldTitles(after: first, limit: 3)
        #expect(first != nil && second != nil && first != second)
        #expect(try await stores.documents.foldTitles(after: second, limit: 3) == nil, "none left after the last")
        #expect(try await stores.documents.foldTitles(after: nil, limit: 3) == nil, "none left at all")
        #expect(try await search("uber") == ["Über alles"])
        #expect(try await search("creme") == ["Crème brûlée"])
        #expect(try await stores.documents.loadCurrent(id: uber)?.document.title == "Über alles")
    }
}
