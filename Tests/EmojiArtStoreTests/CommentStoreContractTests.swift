import EmojiArtKit
import EmojiArtStore
import Foundation
import Testing

/// Issue #37's comments on every store: threads with replies in order, newest activity first,
/// edits, resolving within the open-thread limit, deletes (a thread with its replies, a
/// document with its comments), pins kept, and the flood quota (per author and address, not
/// undone by deleting).
@Suite("Comment threads keep the contract")
struct CommentStoreContractTests {
    let date = Date(timeIntervalSince1970: 1_700_000_000)
    let ada = CommentAuthor.user(UUID(), name: "ada")
    let guest = CommentAuthor.guest(browserHash: "b1")

    func document(_ stores: Stores) async throws -> UUID {
        let record = StoredDocument(
            id: UUID(), document: try EmojiArtDocument(title: "Doc"), version: 0, createdAt: date, updatedAt: date)
        try await stores.documents.createDocument(record, owner: LocalUser.id)
        return record.id
    }

    func thread(_ doc: UUID, _ text: String, by author: CommentAuthor, at offset: Double, emoji: Int? = nil)
        -> CommentThread
    {
        CommentThread(
            documentID: doc, first: Comment(text: text, author: author, createdAt: date + offset),
            position: CommentPoint(x: offset, y: -offset), emojiID: emoji, anchorVersion: 3)
    }

    @Test(arguments: StoreKind.available)
    func threadsKeepTheirRepliesInOrderAndComeNewestActivityFirst(kind: StoreKind) async throws {
        let stores = try await kind.makeStores()
        let (doc, other) = (try await document(stores), try await document(stores))
        let first = thread(doc, "First <b>bold</b>\nline two", by: ada, at: 1, emoji: 7)
        let second = thread(doc, "Second", by: guest, at: 2)
        try await stores.comments.createThread(first, openLimit: 500, quota: .none)
        try await stores.comments.createThread(second, openLimit: 500, quota: .none)
        try await stores.comments.createThread(thread(other, "Elsewhere", by: ada, at: 3), openLimit: 500, quota: .none)
        #expect(try await stores.comments.threads(of: doc).map(\.first.text) == ["Second", first.first.text])
        let reply = Comment(text: "A reply", author: guest, createdAt: date + 10)
        #expect(try await stores.comments.addReply(reply, to: first.id, of: doc, quota: .none))
        #expect(
            try await stores.comments.addReply(
                Comment(text: "Two", author: ada, createdAt: date + 11), to: first.id, of: doc, quota: .none))
        // Not a thread of this document, and not a thread at all: nothing added.
        #expect(try await !stores.comments.addReply(reply, to: first.id, of: other, quota: .none))
        #expect(
            try await !stores.comments.addReply(
                Comment(text: "x", author: ada, createdAt: date), to: reply.id, of: doc, quota: .none)
        )
        let threads = try await stores.comments.threads(of: doc)
        #expect(threads.map(\.first.text) == [first.first.text, "Second"], "a reply is activity")
        let read = threads[0]
        #expect(read.replies.map(\.text) == ["A reply", "Two"])
        #expect(read.replies[0].author == guest)
        #expect(read.first.author == ada)
        #expect(read.emojiID == 7)
        #expect(read.position == CommentPoint(x: 1, y: -1))
        #expect(read.anchorVersion == 3)
        #expect(read.updatedAt == date + 11)
        #expect(try await stores.comments.thread(containing: reply.id, of: doc) == read)
        #expect(try await stores.comments.thread(containing: first.id, of: doc) == read)
        #expect(try await stores.comments.thread(containing: first.id, of: other) == nil)
    }

    @Test(arguments: StoreKind.available)
    func editsResolvesAndDeletesChangeOnlyTheirOwnDocument(kind: StoreKind) async throws {
        let stores = try await kind.makeStores()
        let (doc, other) = (try await document(stores), try await document(stores))
        let first = thread(doc, "Draft", by: ada, at: 1)
        try await stores.comments.createThread(first, openLimit: 500, quota: .none)
        let reply = Comment(text: "Reply", author: guest, createdAt: date + 5)
        _ = try await stores.comments.addReply(reply, to: first.id, of: doc, quota: .none)
        #expect(try await stores.comments.editComment(reply.id, of: doc, text: "Changed", at: date + 20))
        #expect(try await !stores.comments.editComment(reply.id, of: other, text: "No", at: date + 21))
        var read = try #require(try await stores.comments.threads(of: doc).first)
        #expect(read.replies[0].text == "Changed")
        #expect(read.replies[0].editedAt == date + 20)
        #expect(read.updatedAt == date + 20)
        #expect(
            try await stores.comments.setResolved(
                true, thread: first.id, of: doc, at: date + 30, openLimit: 500))
        #expect(
            try await !stores.comments.setResolved(
                true, thread: reply.id, of: doc, at: date + 30, openLimit: 500))
        #expect(
            try await !stores.comments.setResolved(
                true, thread: first.id, of: other, at: date + 30, openLimit: 500))
        read = try #require(try await stores.comments.threads(of: doc).first)
        #expect(read.resolved)
        #expect(try await !stores.comments.deleteComment(reply.id, of: other))
        #expect(try await stores.comments.deleteComment(reply.id, of: doc))
        #expect(try await stores.comments.threads(of: doc).first?.replies == [])
        _ = try await stores.comments.addReply(reply, to: first.id, of: doc, quota: .none)
        #expect(try await stores.comments.deleteComment(first.id, of: doc))
        #expect(try await stores.comments.threads(of: doc).isEmpty)
        #expect(try await stores.comments.thread(containing: reply.id, of: doc) == nil, "replies go with the thread")
        #expect(try await !stores.comments.deleteComment(first.id, of: doc))
    }

    @Test(arguments: StoreKind.available)
    func aDocumentHasAtMostTheLimitOfOpenThreadsAndReopeningCounts(kind: StoreKind) async throws {
        let stores = try await kind.makeStores()
        let doc = try await document(stores)
        let threads = (0..<3).map { thread(doc, "T\($0)", by: ada, at: Double($0)) }
        for made in threads.prefix(2) { try await stores.comments.createThread(made, openLimit: 2, quota: .none) }
        await #expect(throws: CommentStoreError.tooManyOpenThreads) {
            try await stores.comments.createThread(threads[2], openLimit: 2, quota: .none)
        }
        #expect(try await stores.comments.threads(of: doc).count == 2, "nothing was added")
        #expect(
            try await stores.comments.setResolved(
                true, thread: threads[0].id, of: doc, at: date, openLimit: 2))
        try await stores.comments.createThread(threads[2], openLimit: 2, quota: .none)
        await #expect(throws: CommentStoreError.tooManyOpenThreads) {
            try await stores.comments.setResolved(
                false, thread: threads[0].id, of: doc, at: date, openLimit: 2)
        }
        #expect(try await stores.comments.thread(containing: threads[0].id, of: doc)?.resolved == true)
    }

    @Test(arguments: StoreKind.available)
    func pinsMoveQuotasHoldAndADeletedDocumentTakesItsComments(kind: StoreKind) async throws {
        let stores = try await kind.makeStores()
        let doc = try await document(stores)
        let pinned = thread(doc, "On the dog", by: ada, at: 1, emoji: 4)
        try await stores.comments.createThread(pinned, openLimit: 500, quota: .none)
        try await stores.comments.movePins([pinned.id: CommentPoint(x: 50, y: 60)], of: doc, atVersion: 9)
        // An older reading never overwrites a newer one.
        try await stores.comments.movePins([pinned.id: CommentPoint(x: 1, y: 1)], of: doc, atVersion: 8)
        let read = try #require(try await stores.comments.threads(of: doc).first)
        #expect((read.position, read.anchorVersion) == (CommentPoint(x: 50, y: 60), 9))
        // A quota: ada may write 2 a minute, the address 3; deleting gives none back.
        func quota(_ at: Double) -> CommentQuota {
            CommentQuota(limits: [ada.key: 2, "address:1": 3], since: date + at - 60)
        }
        let reply = Comment(text: "r", author: ada, createdAt: date + 5)
        #expect(try await stores.comments.addReply(reply, to: pinned.id, of: doc, quota: quota(5)))
        #expect(try await stores.comments.deleteComment(reply.id, of: doc))
        try await stores.comments.createThread(thread(doc, "Two", by: ada, at: 6), openLimit: 500, quota: quota(6))
        await #expect(throws: CommentStoreError.tooManyComments) {
            try await stores.comments.createThread(
                thread(doc, "Three", by: ada, at: 7), openLimit: 500, quota: quota(7))
        }
        await #expect(throws: CommentStoreError.tooManyComments) {
            _ = try await stores.comments.addReply(
                Comment(text: "r2", author: ada, createdAt: date + 8), to: pinned.id, of: doc, quota: quota(8))
        }
        #expect(try await stores.comments.threads(of: doc).count == 2, "nothing was added")
        // The guest shares the address: one more from it, then the address is full too.
        let guestQuota = CommentQuota(limits: [guest.key: 2, "address:1": 3], since: date + 9 - 60)
        try await stores.comments.createThread(thread(doc, "G", by: guest, at: 9), openLimit: 500, quota: guestQuota)
        await #expect(throws: CommentStoreError.tooManyComments) {
            try await stores.comments.createThread(
                thread(doc, "G2", by: guest, at: 9.5), openLimit: 500, quota: guestQuota)
        }
        // A minute on, ada's writes have aged out.
        try await stores.comments.createThread(thread(doc, "Later", by: ada, at: 70), openLimit: 500, quota: quota(70))
        #expect(try await stores.documents.deleteDocument(id: doc))
        #expect(try await stores.comments.threads(of: doc).isEmpty)
        await #expect(throws: AccountStoreError.unknownDocument) {
            try await stores.comments.createThread(
                thread(doc, "Too late", by: ada, at: 9), openLimit: 500, quota: .none)
        }
    }

    @Test func theTextRulesRefuseEmptyLongAndControlCharacters() {
        #expect(CommentLimits.problem(with: "Looks good 👍\n\tindented <script>") == nil)
        #expect(CommentLimits.problem(with: String(repeating: "👍🏽", count: 2_000)) == nil, "characters, not bytes")
        #expect(CommentLimits.problem(with: "") != nil)
        #expect(CommentLimits.problem(with: " \n ") != nil)
        #expect(CommentLimits.problem(with: String(repeating: "a", count: 2_001)) != nil)
        #expect(CommentLimits.problem(with: "bell\u{7}") != nil)
        #expect(CommentLimits.problem(with: "nul\u{0}") != nil)
        #expect(CommentLimits.problem(with: "cr\r\n") != nil)
        #expect(CommentLimits.problem(with: "c1\u{85}") != nil)
    }
}
