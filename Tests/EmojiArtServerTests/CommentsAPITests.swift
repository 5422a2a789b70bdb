import EmojiArtKit
import EmojiArtServer
import EmojiArtStore
import Foundation
import HTTPTypes
import Hummingbird
import Testing

/// Issue #37's comments through the router: who may read, write, edit and delete them (owner,
/// editor, commenter by name, comment link, viewer, view link, another user, anonymous, revoked
/// link), what bad text gets, the flood limit, and pins that follow their emoji.
@Suite("Comments")
struct CommentsAPITests {
    static let password = AccessTests.password

    /// ada owns a document with a 🐶 (id 1) shared with eve (editor), cora (commenter) and vic
    /// (viewer); oscar has no role. Links: comment (granted to browser "b-comment"), view, and a
    /// revoked comment link (granted to "b-revoked").
    struct World {
        let stores: Stores
        let document: UUID
        let other: UUID
        let browsers: [String: String]

        static func make() async throws -> World {
            let stores = Stores.inMemory()
            let hasher = PasswordHasher(cost: 4)
            var ids: [String: UUID] = [:]
            for name in ["ada", "eve", "cora", "vic", "oscar"] {
                let user = User(name: name)
                try await stores.users.addUser(user, passwordHash: try await hasher.hash(CommentsAPITests.password))
                ids[name] = user.id
            }
            var picture = try EmojiArtDocument(title: "Ada's")
            _ = try picture.apply(.addEmoji(text: "🐶", position: Point(x: 10, y: 20), size: 40))
            let record = StoredDocument(id: UUID(), document: picture, version: 0, createdAt: Date(), updatedAt: Date())
            try await stores.documents.createDocument(record, owner: ids["ada"]!)
            let other = StoredDocument(
                id: UUID(), document: try .init(title: "Other"), version: 0, createdAt: Date(), updatedAt: Date())
            try await stores.documents.createDocument(other, owner: ids["ada"]!)
            try await stores.shares.setRole(.editor, of: ids["eve"]!, on: record.id)
            try await stores.shares.setRole(.commenter, of: ids["cora"]!, on: record.id)
            try await stores.shares.setRole(.viewer, of: ids["vic"]!, on: record.id)
            var browsers: [String: String] = [:]
            for (name, role, revoked) in [
                ("commentLink", ShareLink.Role.comment, false), ("viewLink", .view, false),
                ("revokedLink", .comment, true),
            ] {
                let link = ShareLink(documentID: record.id, token: Secret.make(), role: role)
                try await stores.links.createLink(link)
                let browser = Secret.make()
                try await stores.links.grantLink(link.id, toBrowser: Secret.hash(browser), at: Date(), keeping: 10)
                if revoked { _ = try await stores.links.revokeLink(id: link.id, of: record.id) }
                browsers[name] = browser
            }
            return World(stores: stores, document: record.id, other: other.id, browsers: browsers)
        }

        func headers(_ actor: Actor, _ api: APIClient) async throws -> HTTPFields {
            if let name = actor.userName { return try await AccessTests.signIn(name, api: api) }
            if let browser = browsers[actor.rawValue] { return [.cookie: "\(Cookies.browser)=\(browser)"] }
            return [:]
        }
    }

    enum Actor: String, CaseIterable, CustomTestStringConvertible {
        case owner, editor, commenter, commentLink, viewer, viewLink, otherUser, anonymous, revokedLink

        var testDescription: String { rawValue }

        var userName: String? {
            switch self {
            case .owner: "ada"
            case .editor: "eve"
            case .commenter: "cora"
            case .viewer: "vic"
            case .otherUser: "oscar"
            default: nil
            }
        }

        var mayRead: Bool { ![.otherUser, .anonymous, .revokedLink].contains(self) }
        var mayComment: Bool { [.owner, .editor, .commenter, .commentLink].contains(self) }
        /// What a refused comment gets.
        var refusal: HTTPResponse.Status {
            switch self {
            case .anonymous, .revokedLink: .unauthorized
            case .otherUser: .notFound
            default: .forbidden
            }
        }
    }

    @Test(arguments: Actor.allCases)
    func eachRoleReadsWritesAndResolvesAsItShould(actor: Actor) async throws {
        let world = try await World.make()
        try await withAPI(access: testAccounts, stores: world.stores) { api in
            let owner = try await world.headers(.owner, api)
            let started = try await api.request(
                .post, "/api/documents/\(world.document)/comments",
                json: ["text": "Ada's note", "position": ["x": 5, "y": -5]], headers: owner)
            #expect(started.status == .created, "\(started.text)")
            let threadID = try #require(started.json["id"] as? String)
            let headers = try await world.headers(actor, api)
            let path = "/api/documents/\(world.document)/comments"

            let list = try await api.request(.get, path, headers: headers)
            #expect(list.status == (actor.mayRead ? .ok : actor.refusal), "\(actor) list: \(list.text)")

            let made = try await api.request(
                .post, path, json: ["text": "From \(actor)", "emojiId": 1], headers: headers)
            let replied = try await api.request(
                .post, "\(path)/\(threadID)/replies", json: ["text": "Reply"], headers: headers)
            let resolved = try await api.request(
                .patch, "\(path)/\(threadID)", json: ["resolved": true], headers: headers)
            for reply in [made, replied] {
                #expect(reply.status == (actor.mayComment ? .created : actor.refusal), "\(actor): \(reply.text)")
            }
            #expect(resolved.status == (actor.mayComment ? .ok : actor.refusal), "\(actor) resolve: \(resolved.text)")
            let threads = try await world.stores.comments.threads(of: world.document)
            if actor.mayComment {
                let mine = try #require(threads.first { $0.first.text == "From \(actor)" })
                #expect(mine.emojiID == 1)
                #expect(mine.position == CommentPoint(x: 10, y: 20), "at the emoji")
                let name = actor.userName ?? "Guest"
                #expect(made.json["author"] as? String == name)
                #expect(made.json["mine"] as? Bool == true)
                #expect(replied.json["author"] as? String == name)
            } else {
                #expect(threads.count == 1, "\(actor) changed nothing")
                #expect(threads[0].replies.isEmpty && !threads[0].resolved)
                #expect(made.errorCode != nil)
            }
            // Someone else's comment: only the owner deletes it; nobody else edits it.
            let edit = try await api.request(
                .patch, "\(path)/\(threadID)", json: ["text": "Mine now"], headers: headers)
            let delete = try await api.request(.delete, "\(path)/\(threadID)", headers: headers)
            switch actor {
            case .owner:
                #expect(edit.status == .ok)
                #expect(delete.status == .noContent)
            case .editor, .commenter, .commentLink, .viewer, .viewLink:
                #expect(edit.status == .forbidden, "\(actor) edit: \(edit.text)")
                #expect(delete.status == .forbidden, "\(actor) delete: \(delete.text)")
            default:
                #expect(edit.status == actor.refusal)
                #expect(delete.status == actor.refusal)
            }
        }
    }

    @Test func authorsEditAndDeleteTheirOwnAndAnswersNameTheirAuthorsAsText() async throws {
        let world = try await World.make()
        try await withAPI(access: testAccounts, stores: world.stores) { api in
            let cora = try await world.headers(.commenter, api)
            let owner = try await world.headers(.owner, api)
            let path = "/api/documents/\(world.document)/comments"
            let text = #"<img src=x onerror="alert(1)"> https://example.com"#
            let made = try await api.request(
                .post, path, json: ["text": text, "position": ["x": 1.5, "y": 2]], headers: cora)
            #expect(made.status == .created)
            let id = try #require(made.json["id"] as? String)
            #expect(made.json["text"] as? String == text, "kept as written: plain text")
            #expect((made.json["position"] as? [String: Double]) == ["x": 1.5, "y": 2])
            #expect(made.json["emojiId"] == nil)
            #expect(made.json["resolved"] as? Bool == false)
            #expect((made.json["replies"] as? [Any])?.isEmpty == true)
            let reply = try await api.request(.post, "\(path)/\(id)/replies", json: ["text": "Owner's"], headers: owner)
            let replyID = try #require(reply.json["id"] as? String)
            #expect(
                try await api.request(.patch, "\(path)/\(id)", json: ["text": "Better"], headers: cora).status == .ok)
            // Cora can't change the owner's reply, but the owner may delete Cora's thread.
            #expect(
                try await api.request(.patch, "\(path)/\(replyID)", json: ["text": "x"], headers: cora).status
                    == .forbidden)
            #expect(try await api.request(.delete, "\(path)/\(replyID)", headers: cora).status == .forbidden)
            let list = try await api.request(.get, path, headers: owner).json["comments"] as? [[String: Any]]
            let thread = try #require(list?.first)
            #expect(thread["text"] as? String == "Better")
            #expect(thread["editedAt"] is String)
            #expect(thread["mine"] as? Bool == false, "the owner didn't write it")
            #expect((thread["replies"] as? [[String: Any]])?.first?["mine"] as? Bool == true)
            #expect(try await api.request(.delete, "\(path)/\(replyID)", headers: owner).status == .noContent)
            #expect(try await api.request(.delete, "\(path)/\(id)", headers: cora).status == .noContent)
            #expect(try await world.stores.comments.threads(of: world.document).isEmpty)
            // Comments are not document edits: the document's version never moved.
            #expect(try await world.stores.documents.loadCurrent(id: world.document)?.version == 0)
        }
    }

    @Test func badTextIs422ARepliesThreadMustBeThisDocumentsAndFloodsAre429() async throws {
        let world = try await World.make()
        try await withAPI(access: testAccounts, stores: world.stores) { api in
            let cora = try await world.headers(.commenter, api)
            let owner = try await world.headers(.owner, api)
            let path = "/api/documents/\(world.document)/comments"
            for bad: [String: Any] in [
                ["text": "", "position": ["x": 0, "y": 0]],
                ["text": "   \n", "position": ["x": 0, "y": 0]],
                ["text": String(repeating: "a", count: 2_001), "position": ["x": 0, "y": 0]],
                ["text": "bell\u{7}", "position": ["x": 0, "y": 0]],
                ["text": "nowhere"],
                ["text": "far", "position": ["x": 1e9, "y": 0]],
                ["text": "gone emoji", "emojiId": 99],
            ] {
                let reply = try await api.request(.post, path, json: bad, headers: cora)
                #expect(reply.status == .unprocessableContent, "\(bad.keys.sorted()): \(reply.text)")
            }
            #expect(try await world.stores.comments.threads(of: world.document).isEmpty)
            // A thread of the other document is not one of this document's.
            let elsewhere = try await api.request(
                .post, "/api/documents/\(world.other)/comments",
                json: ["text": "There", "position": ["x": 0, "y": 0]],
                headers: owner)
            let elsewhereID = try #require(elsewhere.json["id"] as? String)
            for (method, suffix, json) in [
                (HTTPRequest.Method.post, "/replies", ["text": "Hi"] as [String: Any]),
                (.patch, "", ["resolved": true]), (.delete, "", [:]),
            ] {
                let reply = try await api.request(
                    method, "\(path)/\(elsewhereID)\(suffix)", json: method == .delete ? nil : json, headers: owner)
                #expect(reply.status == .notFound, "\(method) \(suffix): \(reply.text)")
            }
            #expect(try await world.stores.comments.threads(of: world.other).first?.replies.isEmpty == true)
            // Thirty a minute, threads and replies together; then 429, with when to come back.
            var made = 0
            while made < CommentLimits.perMinute {
                let reply = try await api.request(
                    .post, path, json: ["text": "Note \(made)", "position": ["x": made, "y": 0]], headers: cora)
                #expect(reply.status == .created)
                made += 1
            }
            let flood = try await api.request(
                .post, path, json: ["text": "One more", "position": ["x": 0, "y": 0]], headers: cora)
            #expect(flood.status == .tooManyRequests)
            #expect(flood.headers[.retryAfter] != nil)
            #expect(try await world.stores.comments.threads(of: world.document).count == CommentLimits.perMinute)
            // Someone else is not held back by Cora's flood.
            #expect(
                try await api.request(
                    .post, path, json: ["text": "Ada", "position": ["x": 0, "y": 0]], headers: owner
                )
                .status == .created)
        }
    }

    @Test func aDocumentTakesFiveHundredOpenThreads() async throws {
        let world = try await World.make()
        for index in 0..<CommentLimits.openThreads {
            try await world.stores.comments.createThread(
                CommentThread(
                    documentID: world.document,
                    first: Comment(text: "\(index)", author: .user(UUID(), name: "x"), createdAt: Date()),
                    position: CommentPoint(x: 0, y: 0)), openLimit: CommentLimits.openThreads, quota: .none)
        }
        try await withAPI(access: testAccounts, stores: world.stores) { api in
            let owner = try await world.headers(.owner, api)
            let path = "/api/documents/\(world.document)/comments"
            let full = try await api.request(
                .post, path, json: ["text": "501", "position": ["x": 0, "y": 0]], headers: owner)
            #expect(full.status == .unprocessableContent)
            #expect(full.errorCode == "too_many_threads")
            let first = try #require(try await world.stores.comments.threads(of: world.document).last)
            let resolve = try await api.request(
                .patch, "\(path)/\(first.id)", json: ["resolved": true], headers: owner)
            #expect(resolve.status == .ok)
            #expect(resolve.json["resolved"] as? Bool == true)
            #expect(
                try await api.request(
                    .post, path, json: ["text": "Now", "position": ["x": 0, "y": 0]], headers: owner
                )
                .status == .created)
            let reopen = try await api.request(.patch, "\(path)/\(first.id)", json: ["resolved": false], headers: owner)
            #expect(reopen.errorCode == "too_many_threads")
        }
    }

    @Test func aPinFollowsItsEmojiAndStaysWhereItLastWasWhenTheEmojiIsDeleted() async throws {
        try await withAPI { api in
            let id = try await api.createDocument()
            _ = try await api.edit(id, base: 0, [addEmoji("🐶", x: 10, y: 20), addEmoji("🐱", x: -5, y: -5)])
            let path = "/api/documents/\(id)/comments"
            let onDog = try await api.request(.post, path, json: ["text": "The dog", "emojiId": 1])
            let dog = try #require(onDog.json["id"] as? String)
            let onCat = try await api.request(.post, path, json: ["text": "The cat", "emojiId": 2])
            let cat = try #require(onCat.json["id"] as? String)
            func place(_ thread: String) async throws -> [String: Double]? {
                let threads = try await api.request(.get, path).json["comments"] as? [[String: Any]]
                return threads?.first { $0["id"] as? String == thread }?["position"] as? [String: Double]
            }
            #expect(try await place(dog) == ["x": 10, "y": 20])
            // The dog moves, is seen there, then is deleted: its pin stays where it was.
            _ = try await api.edit(id, base: 1, [["type": "moveEmojis", "ids": [1], "offset": ["x": 5, "y": 5]]])
            #expect(try await place(dog) == ["x": 15, "y": 25])
            // The cat moves twice and is deleted with no one looking in between: the document's
            // history says where it last was.
            _ = try await api.edit(id, base: 2, [["type": "moveEmojis", "ids": [2], "offset": ["x": 100, "y": 0]]])
            _ = try await api.edit(id, base: 3, [["type": "moveEmojis", "ids": [2], "offset": ["x": 0, "y": 50]]])
            _ = try await api.edit(id, base: 4, [["type": "deleteEmojis", "ids": [1, 2]]])
            #expect(try await place(dog) == ["x": 15, "y": 25])
            #expect(try await place(cat) == ["x": 95, "y": 45])
            // Undone, the emojis are back, and so the pins follow them again.
            _ = try await api.request(.post, "/api/documents/\(id)/undo")
            _ = try await api.edit(id, base: 6, [["type": "moveEmojis", "ids": [2], "offset": ["x": 1, "y": 1]]])
            #expect(try await place(cat) == ["x": 96, "y": 46])
            let threads = try await api.request(.get, path).json["comments"] as? [[String: Any]]
            #expect(
                threads?.map { $0["emojiId"] as? Int } == [2, 1], "newest activity first; still about their emojis")
        }
    }
}
