import EmojiArtServer
import EmojiArtStore
import EmojiArtStoreSQLite
import Foundation
import HTTPTypes
import Hummingbird
import Testing

/// Accounts mode through the router: signing in, and a role matrix — owner, editor, viewer,
/// another user, anonymous, view link, edit link, revoked link — against every document route,
/// each refusal checked to have changed nothing.
@Suite("Who may do what")
struct AccessTests {
    static let password = "correct horse battery"

    /// Stores with users ada (owner), eve (editor), vic (viewer), oscar (no role), a document of
    /// ada's shared with eve and vic, and three links (view, edit, revoked).
    struct World {
        let stores: Stores
        let document: UUID
        let viewLink: String
        let editLink: String
        let revokedLink: String

        static func make() async throws -> World {
            let stores = Stores.inMemory()
            let hasher = PasswordHasher(cost: 4)
            var ids: [String: UUID] = [:]
            for name in ["ada", "eve", "vic", "oscar"] {
                let user = User(name: name)
                try await stores.users.addUser(user, passwordHash: try await hasher.hash(AccessTests.password))
                ids[name] = user.id
            }
            let record = StoredDocument(
                id: UUID(), document: try .init(title: "Ada's"), version: 0, createdAt: Date(), updatedAt: Date())
            try await stores.documents.createDocument(record, owner: ids["ada"]!)
            try await stores.shares.setRole(.editor, of: ids["eve"]!, on: record.id)
            try await stores.shares.setRole(.viewer, of: ids["vic"]!, on: record.id)
            let (view, edit, revoked) = (Secret.make(), Secret.make(), Secret.make())
            try await stores.links.createLink(ShareLink(documentID: record.id, token: view, role: .view))
            try await stores.links.createLink(ShareLink(documentID: record.id, token: edit, role: .edit))
            let gone = ShareLink(documentID: record.id, token: revoked, role: .edit)
            try await stores.links.createLink(gone)
            _ = try await stores.links.revokeLink(id: gone.id, of: record.id)
            // The document's background image, as its live copy records it once found.
            let image = try StoredImage(data: AccessTests.backgroundBytes)
            try await stores.images.saveImage(image)
            try await stores.images.recordImageUse(image.id, by: .document(record.id))
            return World(stores: stores, document: record.id, viewLink: view, editLink: edit, revokedLink: revoked)
        }
    }

    enum Actor: String, CaseIterable, CustomTestStringConvertible {
        case owner, editor, viewer, otherUser, anonymous, viewLink, editLink, revokedLink

        var testDescription: String { rawValue }

        var userName: String? {
            switch self {
            case .owner: "ada"
            case .editor: "eve"
            case .viewer: "vic"
            case .otherUser: "oscar"
            default: nil
            }
        }
    }

    /// The headers that make `actor`: a session cookie, or a links cookie.
    static func headers(for actor: Actor, world: World, api: APIClient) async throws -> HTTPFields {
        if let name = actor.userName { return try await signIn(name, api: api) }
        switch actor {
        case .viewLink: return [.cookie: "\(Cookies.links)=\(world.viewLink)"]
        case .editLink: return [.cookie: "\(Cookies.links)=\(world.editLink)"]
        case .revokedLink: return [.cookie: "\(Cookies.links)=\(world.revokedLink)"]
        default: return [:]
        }
    }

    static func signIn(_ name: String, api: APIClient) async throws -> HTTPFields {
        let reply = try await api.request(.post, "/api/session", json: ["name": name, "password": password])
        #expect(reply.status == .ok, "sign-in of \(name): \(reply.text)")
        let cookie = try #require(reply.headers[.setCookie]?.split(separator: ";").first)
        return [.cookie: String(cookie)]
    }

    enum Outcome: Equatable {
        case allowed
        case status(HTTPResponse.Status)
    }

    /// A JSON body as a test writes it (not Sendable: it is turned into bytes at once).
    struct JSONBody: @unchecked Sendable {
        var value: [String: Any]
    }

    struct Route: Sendable {
        var name: String
        var method: HTTPRequest.Method
        var path: @Sendable (UUID) -> String
        var json: JSONBody?
        /// What each actor gets; anyone not listed is refused as `otherwise` says.
        var allowed: Set<Actor>
        /// What an allowed actor gets besides a 2xx: an undo of a document with nothing to
        /// undo is let through and answered `409 nothing_to_undo`.
        var allowedError: String? = nil

        /// A change: whether it changed the document is checked after a refusal.
        var changes: Bool { method != .get }
    }

    static let viewers: Set<Actor> = [.owner, .editor, .viewer, .viewLink, .editLink]

    /// The document's background (Tests/Fixtures/images/red-7x5.png) and its id.
    static let backgroundBytes =
        (try? Data(contentsOf: fixturesDirectory.appendingPathComponent("images/red-7x5.png"))) ?? Data()
    static let backgroundID = StoredImage.id(of: backgroundBytes)
    static let editors: Set<Actor> = [.owner, .editor, .editLink]

    static let routes: [Route] = [
        Route(name: "show", method: .get, path: { "/api/documents/\($0)" }, allowed: viewers),
        Route(name: "export", method: .get, path: { "/api/documents/\($0)/export" }, allowed: viewers),
        Route(name: "picture", method: .get, path: { "/api/documents/\($0)/picture?format=svg" }, allowed: viewers),
        Route(name: "thumbnail", method: .get, path: { "/api/documents/\($0)/thumbnail" }, allowed: viewers),
        // Issue #33: a private background was served by its hash to anyone signed in.
        Route(name: "background image", method: .get, path: { _ in "/api/images/\(backgroundID)" }, allowed: viewers),
        Route(
            name: "rename", method: .patch, path: { "/api/documents/\($0)" },
            json: JSONBody(value: ["title": "Changed"]),
            allowed: editors),
        Route(
            name: "edit", method: .post, path: { "/api/documents/\($0)/edits" },
            json: JSONBody(value: ["baseVersion": 0, "edits": [addEmoji()]]), allowed: editors),
        // Issue #35: anyone who sees the document may preview a mosaic; only editors make one.
        // (The document has no background, so those allowed get as far as saying so.)
        Route(
            name: "mosaic preview", method: .post, path: { "/api/documents/\($0)/mosaic?preview=1" },
            json: JSONBody(value: ["columns": 10, "emojis": "🟥🟦"]), allowed: viewers, allowedError: "invalid_background"
        ),
        Route(
            name: "mosaic picture", method: .get, path: { "/api/documents/\($0)/mosaic?columns=10" },
            allowed: viewers, allowedError: "invalid_background"),
        Route(
            name: "mosaic", method: .post, path: { "/api/documents/\($0)/mosaic" },
            json: JSONBody(value: ["columns": 10, "emojis": "🟥🟦"]), allowed: editors, allowedError: "invalid_background"
        ),
        Route(
            name: "undo", method: .post, path: { "/api/documents/\($0)/undo" }, allowed: editors,
            allowedError: "nothing_to_undo"),
        Route(
            name: "redo", method: .post, path: { "/api/documents/\($0)/redo" }, allowed: editors,
            allowedError: "nothing_to_redo"),
        Route(
            name: "duplicate", method: .post, path: { "/api/documents/\($0)/duplicate" },
            allowed: [.owner, .editor, .viewer]),
        // Issue #38: making a document under an id that is taken changes nothing; whoever sees
        // it with an account is answered it as it is.
        Route(
            name: "create again", method: .put, path: { "/api/documents/\($0)" },
            json: JSONBody(value: ["title": "Mine now"]), allowed: [.owner, .editor, .viewer]),
        Route(
            name: "create link", method: .post, path: { "/api/documents/\($0)/links" },
            json: JSONBody(value: ["role": "view"]),
            allowed: [.owner]),
        // Issue #37: everyone who sees the document reads its comments; a view link or a
        // viewer writes none — nor a guest known only by the old links cookie, who opens the
        // link again to comment as their browser (commenters, comment links: CommentsAPITests).
        Route(name: "comments", method: .get, path: { "/api/documents/\($0)/comments" }, allowed: viewers),
        Route(
            name: "comment", method: .post, path: { "/api/documents/\($0)/comments" },
            json: JSONBody(value: ["text": "Nice", "position": ["x": 0, "y": 0]]), allowed: [.owner, .editor]),
        Route(name: "list links", method: .get, path: { "/api/documents/\($0)/links" }, allowed: [.owner]),
        Route(name: "list members", method: .get, path: { "/api/documents/\($0)/members" }, allowed: [.owner]),
        Route(
            name: "share with oscar", method: .put, path: { "/api/documents/\($0)/members/oscar" },
            json: JSONBody(value: ["role": "editor"]), allowed: [.owner]),
        Route(name: "unshare vic", method: .delete, path: { "/api/documents/\($0)/members/vic" }, allowed: [.owner]),
        Route(name: "delete", method: .delete, path: { "/api/documents/\($0)" }, allowed: [.owner]),
    ]

    /// What a refused actor gets: 401 with nothing that works presented (a revoked link is
    /// nothing), 404 when they can't see the document, 403 when they can see it but not do this.
    static func refusal(for actor: Actor, route: Route) -> HTTPResponse.Status {
        switch actor {
        case .anonymous, .revokedLink: .unauthorized
        case .otherUser: .notFound
        case .viewLink, .editLink: ["duplicate", "create again"].contains(route.name) ? .unauthorized : .forbidden
        default: .forbidden
        }
    }

    @Test(arguments: Actor.allCases)
    func everyDocumentRouteAnswersEachRoleAsItShould(actor: Actor) async throws {
        for route in Self.routes {
            let world = try await World.make()
            try await withAPI(access: testAccounts, stores: world.stores) { api in
                let headers = try await Self.headers(for: actor, world: world, api: api)
                let before = try await Self.state(world)
                let reply = try await api.request(
                    route.method, route.path(world.document), json: route.json?.value, headers: headers)
                if route.allowed.contains(actor) {
                    #expect(
                        (200..<300).contains(reply.status.code)
                            || (reply.errorCode != nil && reply.errorCode == route.allowedError),
                        "\(actor) \(route.name): \(reply.status) \(reply.text)"
                    )
                } else {
                    let expected = Self.refusal(for: actor, route: route)
                    #expect(reply.status == expected, "\(actor) \(route.name): \(reply.status) \(reply.text)")
                    #expect(reply.errorCode != nil, "\(actor) \(route.name): a JSON error")
                    if route.changes {
                        #expect(try await Self.state(world) == before, "\(actor) \(route.name) changed something")
                    }
                }
            }
        }
    }

    /// Everything a refused request could have changed.
    static func state(_ world: World) async throws -> [String] {
        let stores = world.stores
        let current = try await stores.documents.loadCurrent(id: world.document)
        let members = try await stores.shares.members(of: world.document).map { "\($0.user.name)=\($0.role)" }
        let links = try await stores.links.links(of: world.document).map(\.token)
        let documents = try await stores.documents.listDocuments().count
        let comments = try await stores.comments.threads(of: world.document).count
        return [
            current.map { "\($0.document.title) v\($0.version) \($0.document.emojis.count)" } ?? "deleted",
            members.joined(separator: ","), links.sorted().joined(separator: ","), "\(documents) documents",
            "\(comments) comments",
        ]
    }

    /// Two people who happen to send the same `Idempotency-Key` make two changes: a key names a
    /// change only among its sender's own.
    @Test func anIdempotencyKeyIsItsSendersOwn() async throws {
        let world = try await World.make()
        try await withAPI(access: testAccounts, stores: world.stores) { api in
            let edit = ["baseVersion": 0, "edits": [addEmoji()]] as [String: Any]
            var versions: [Int] = []
            for name in ["ada", "eve", "ada"] {
                var headers = try await Self.signIn(name, api: api)
                headers[.idempotencyKey] = "same-key"
                let reply = try await api.request(
                    .post, "/api/documents/\(world.document)/edits", json: edit, headers: headers)
                versions.append(reply.json["version"] as? Int ?? -1)
            }
            #expect(versions == [1, 2, 2])
            // Share link visitors: each browser's keys are its own, and a key needs a browser.
            let link = "\(Cookies.links)=\(world.editLink)"
            for (browser, expected) in [("b1", 3), ("b2", 4), ("b1", 4)] {
                let cookie = "\(link); \(Cookies.browser)=\(Self.browsers[browser]!)"
                let reply = try await api.request(
                    .post, "/api/documents/\(world.document)/edits", json: edit,
                    headers: [.cookie: cookie, .idempotencyKey: "same-key"])
                #expect(reply.json["version"] as? Int == expected, "\(browser)")
            }
            let nobody = try await api.request(
                .post, "/api/documents/\(world.document)/edits", json: edit,
                headers: [.cookie: link, .idempotencyKey: "same-key"])
            #expect(nobody.status == .badRequest)
        }
    }

    static let browsers = ["b1": Secret.make(), "b2": Secret.make()]

    @Test func theDocumentListShowsMineAndSharedWithMeAndNothingElse() async throws {
        let world = try await World.make()
        try await withAPI(access: testAccounts, stores: world.stores) { api in
            let oscar = try await Self.signIn("oscar", api: api)
            let own = try await api.request(.post, "/api/documents", json: ["title": "Oscar's"], headers: oscar)
            #expect(own.status == .created && own.json["role"] as? String == "owner")
            func list(_ headers: HTTPFields) async throws -> [String: String] {
                let documents = try await api.request(.get, "/api/documents", headers: headers).json["documents"]
                return Dictionary(
                    uniqueKeysWithValues: (documents as? [[String: Any]] ?? []).map {
                        ($0["title"] as? String ?? "", $0["role"] as? String ?? "")
                    })
            }
            #expect(try await list(oscar) == ["Oscar's": "owner"])
            // A cursor is its list's: one from Oscar's list is refused on Ada's, never read there.
            for _ in 0..<2 {
                _ = try await api.request(.post, "/api/documents", json: ["title": "More"], headers: oscar)
            }
            let next = try #require(
                try await api.request(.get, "/api/documents?limit=1", headers: oscar).json["next"] as? String)
            #expect(try await api.request(.get, "/api/documents?limit=1&cursor=\(next)", headers: oscar).status == .ok)
            let taken = try await api.request(
                .get, "/api/documents?limit=1&cursor=\(next)", headers: try await Self.signIn("ada", api: api))
            #expect(taken.status == .badRequest && taken.json["documents"] == nil)
            #expect(try await list(try await Self.signIn("ada", api: api)) == ["Ada's": "owner"])
            #expect(try await list(try await Self.signIn("vic", api: api)) == ["Ada's": "viewer"])
            #expect(try await list([.cookie: "\(Cookies.links)=\(world.editLink)"]) == ["Ada's": "editor"])
            #expect(try await api.request(.get, "/api/documents").status == .unauthorized)
            // A link holder can't make documents: that takes an account.
            let planted = try await api.request(
                .post, "/api/documents", json: ["title": "x"], headers: [.cookie: "\(Cookies.links)=\(world.editLink)"])
            #expect(planted.status == .unauthorized)
        }
    }

    @Test func signingInIsOneAnswerForAnyWrongCredentialAndGuessingIsThrottled() async throws {
        let world = try await World.make()
        try await withAPI(access: testAccounts, stores: world.stores) { api in
            let wrongName = try await api.request(
                .post, "/api/session", json: ["name": "nobody", "password": Self.password])
            let wrongPassword = try await api.request(
                .post, "/api/session", json: ["name": "ada", "password": "nope nope nope"])
            #expect(wrongName.status == .unauthorized && wrongPassword.status == .unauthorized)
            #expect(wrongName.text == wrongPassword.text, "nothing says which part was wrong")
            #expect(wrongName.headers[.setCookie] == nil)
            for bad in [#"{"name": 1}"#, "not json", #"{"name":"ada"}"#] {
                let reply = try await api.request(
                    .post, "/api/session", bytes: Array(bad.utf8), headers: [.contentType: "application/json"])
                #expect(reply.status == .badRequest, "\(bad)")
            }
            // Guessing one name from one address (here: an unknown one) is slowed there: after
            // three failures the next attempt waits, even with the right password. Other
            // addresses are not (Tests/System/test_outside_attacks.py, SignInThrottleTests).
            for _ in 0..<2 {
                _ = try await api.request(
                    .post, "/api/session", json: ["name": "ada", "password": "wrong wrong wrong"])
            }
            let throttled = try await api.request(
                .post, "/api/session", json: ["name": "ADA", "password": Self.password])
            #expect(throttled.status == .tooManyRequests)
            // The wait (2 s) counts from the last failure: 2, or 1 if more than a second has
            // passed since (a loaded machine).
            #expect((1...2).contains(Int(throttled.headers[.retryAfter] ?? "") ?? 0))
            #expect(throttled.errorCode == "too_many_attempts")
            // Another name from the same address is tried at once.
            let other = try await api.request(.post, "/api/session", json: ["name": "vic", "password": Self.password])
            #expect(other.status == .ok)
        }
    }

    /// The failures are the store's, so guesses spread over the servers sharing it are counted
    /// as one server counts them (docs/DEPLOY.md, "Limits across instances").
    @Test func guessingSpreadOverTwoServersIsThrottledAsOnServer() async throws {
        let world = try await World.make()
        try await withAPI(access: testAccounts, stores: world.stores) { a in
            try await withAPI(access: testAccounts, stores: world.stores) { b in
                for api in [a, b, a] {
                    let wrong = try await api.request(
                        .post, "/api/session", json: ["name": "ada", "password": "wrong wrong wrong"])
                    #expect(wrong.status == .unauthorized)
                }
                let throttled = try await b.request(
                    .post, "/api/session", json: ["name": "ada", "password": Self.password])
                #expect(throttled.status == .tooManyRequests && throttled.errorCode == "too_many_attempts")
            }
        }
    }

    @Test func sessionsEndOnSignOutOnANewPasswordAndWhenTheUserIsRemoved() async throws {
        let world = try await World.make()
        try await withAPI(access: testAccounts, stores: world.stores) { api in
            let ada = try await Self.signIn("ada", api: api)
            let me = try await api.request(.get, "/api/session", headers: ada)
            #expect((me.json["user"] as? [String: Any])?["name"] as? String == "ada")
            #expect(me.json["access"] as? String == "accounts")
            let out = try await api.request(.delete, "/api/session", headers: ada)
            #expect(out.status == .noContent && out.headers[.setCookie]?.contains("Max-Age=0") == true)
            #expect(try await api.request(.get, "/api/session", headers: ada).status == .unauthorized)
            #expect(try await api.request(.get, "/api/documents", headers: ada).status == .unauthorized)

            let eve = try await Self.signIn("eve", api: api)
            let eveID = try #require(try await world.stores.users.user(named: "eve")?.user.id)
            try await world.stores.users.setPasswordHash("x", of: eveID, at: Date())
            #expect(try await api.request(.get, "/api/documents", headers: eve).status == .unauthorized)

            let vic = try await Self.signIn("vic", api: api)
            let vicID = try #require(try await world.stores.users.user(named: "vic")?.user.id)
            #expect(try await world.stores.users.removeUser(id: vicID))
            #expect(try await api.request(.get, "/api/documents", headers: vic).status == .unauthorized)
            // Malformed and unknown cookies are no one.
            for cookie in ["\(Cookies.session)=", "\(Cookies.session)=\(Secret.make())", "\(Cookies.session)=a;b"] {
                #expect(
                    try await api.request(.get, "/api/documents", headers: [.cookie: cookie]).status == .unauthorized)
            }
        }
    }

    @Test func tokensWorkOnEveryRouteUntilRevokedAndBadOnesAre401() async throws {
        let world = try await World.make()
        try await withAPI(access: testAccounts, stores: world.stores) { api in
            let ada = try #require(try await world.stores.users.user(named: "ada")?.user)
            let secret = Secret.make()
            let token = APIToken(userID: ada.id, name: "script")
            try await world.stores.tokens.createToken(token, hash: Secret.hash(secret))
            let bearer: HTTPFields = [.authorization: "Bearer \(secret)"]
            #expect(try await api.request(.get, "/api/documents/\(world.document)", headers: bearer).status == .ok)
            let renamed = try await api.request(
                .patch, "/api/documents/\(world.document)", json: ["title": "By script"], headers: bearer)
            #expect(renamed.status == .ok)
            for bad in ["Bearer \(Secret.make())", "Bearer", "Basic YWRhOnB3", "Bearer \(secret)x", "bearer  "] {
                let reply = try await api.request(.get, "/api/documents", headers: [.authorization: bad])
                #expect(reply.status == .unauthorized, "\(bad)")
            }
            #expect(try await world.stores.tokens.revokeToken(id: token.id))
            #expect(try await api.request(.get, "/api/documents", headers: bearer).status == .unauthorized)
        }
    }

    @Test func openingALinkGivesThisBrowserItsRoleAndARevokedLinkNothing() async throws {
        let world = try await World.make()
        try await withAPI(access: testAccounts, stores: world.stores) { api in
            let opened = try await api.request(.get, "/s/\(world.viewLink)")
            #expect(opened.status == .seeOther)
            #expect(opened.headers[.location] == "/documents/\(world.document.uuidString)")
            // The browser gets an id of its own; the link is kept by the server under it.
            let cookie = try #require(opened.headers[.setCookie])
            #expect(
                cookie.hasPrefix("\(Cookies.browser)=") && cookie.contains("HttpOnly")
                    && cookie.contains("SameSite=Lax"))
            #expect(!cookie.contains(world.viewLink))
            let browser: HTTPFields = [.cookie: String(cookie.prefix { $0 != ";" })]
            #expect(try await api.request(.get, "/api/documents/\(world.document)", headers: browser).status == .ok)
            // Followed from another site's page, a link grants nothing until confirmed here.
            let fromAfar = try await api.request(
                .get, "/s/\(world.editLink)", headers: [HTTPField.Name("Sec-Fetch-Site")!: "cross-site"])
            #expect(fromAfar.status == .ok && fromAfar.headers[.setCookie] == nil)
            #expect(fromAfar.text.contains("<form"))
            let confirmed = try await api.request(
                .post, "/s/\(world.editLink)",
                headers: browser + [HTTPField(name: HTTPField.Name("Sec-Fetch-Site")!, value: "same-origin")])
            #expect(confirmed.status == .seeOther)
            let both = try await api.request(.get, "/api/documents", headers: browser)
            #expect((both.json["documents"] as? [[String: Any]])?.count == 1, "one document, now as editor")
            for token in [world.revokedLink, Secret.make(), "short", "a%2F..%2F..", String(repeating: "a", count: 500)]
            {
                #expect(try await api.request(.get, "/s/\(token)").status == .notFound, "\(token)")
            }
            // The owner makes, lists and revokes links; the URL carries a 256-bit token.
            let ada = try await Self.signIn("ada", api: api)
            let made = try await api.request(
                .post, "/api/documents/\(world.document)/links", json: ["role": "edit"], headers: ada)
            #expect(made.status == .created && made.json["role"] as? String == "edit")
            let url = try #require(made.json["url"] as? String)
            #expect(url.hasPrefix("http://localhost/s/") && url.count >= "http://localhost/s/".count + 43)
            let linkID = try #require(made.json["id"] as? String)
            let listed = try await api.request(.get, "/api/documents/\(world.document)/links", headers: ada)
            #expect((listed.json["links"] as? [[String: Any]])?.count == 3)
            for bad in [["role": "owner"], ["role": "editor"], ["nope": "view"]] {
                let reply = try await api.request(
                    .post, "/api/documents/\(world.document)/links", json: bad, headers: ada)
                #expect(reply.status == .badRequest, "\(bad)")
            }
            let token = String(url.split(separator: "/").last!)
            let holder: HTTPFields = [.cookie: "\(Cookies.links)=\(token)"]
            #expect(try await api.request(.get, "/api/documents/\(world.document)", headers: holder).status == .ok)
            let revoked = try await api.request(
                .delete, "/api/documents/\(world.document)/links/\(linkID)", headers: ada)
            #expect(revoked.status == .noContent)
            #expect(
                try await api.request(.get, "/api/documents/\(world.document)", headers: holder).status == .unauthorized
            )
            #expect(
                try await api.request(.delete, "/api/documents/\(world.document)/links/\(linkID)", headers: ada).status
                    == .notFound)
        }
    }

    @Test func withoutSomeoneEveryAPIRouteIs401AndPagesGoToSignIn() async throws {
        try await withAPI(access: testAccounts) { api in
            for path in [
                "/api/documents", "/api/palettes", "/api/jokes/random",
                "/api/images/\(String(repeating: "a", count: 64))",
                "/api/documents/\(UUID())", "/api/nowhere",
            ] {
                let reply = try await api.request(.get, path)
                #expect(reply.status == .unauthorized, "\(path)")
                #expect(reply.errorCode == "unauthorized", "\(path)")
            }
            #expect(try await api.request(.get, "/api/health").status == .ok)
            for page in ["/", "/documents/\(UUID())", "/play", "/jokes"] {
                let reply = try await api.request(.get, page)
                #expect(reply.status == .seeOther, "\(page)")
                #expect(reply.headers[.location]?.hasPrefix("/signin") == true, "\(page)")
            }
            #expect(try await api.request(.get, "/signin").status == .ok)
            // A made-up or revoked link is no one: the same 401 and redirect.
            let madeUp: HTTPFields = [.cookie: "\(Cookies.links)=\(Secret.make())"]
            #expect(try await api.request(.get, "/api/documents", headers: madeUp).status == .unauthorized)
            #expect(try await api.request(.get, "/api/palettes", headers: madeUp).status == .unauthorized)
            #expect(try await api.request(.get, "/", headers: madeUp).status == .seeOther)
            #expect(try await api.request(.get, "/js/api.js").status == .ok)
            // Sign-up is closed unless the server says otherwise.
            let signup = try await api.request(
                .post, "/api/users", json: ["name": "mallory", "password": Self.password])
            #expect(signup.status == .forbidden)
        }
    }

    @Test func openSignupMakesAnAccountAndSignsIn() async throws {
        var settings = testAccounts
        settings.openSignup = true
        try await withAPI(access: settings) { api in
            let made = try await api.request(.post, "/api/users", json: ["name": "newbie", "password": Self.password])
            #expect(made.status == .created)
            let cookie = try #require(made.headers[.setCookie]?.split(separator: ";").first)
            #expect(try await api.request(.get, "/api/documents", headers: [.cookie: String(cookie)]).status == .ok)
            let again = try await api.request(.post, "/api/users", json: ["name": "NEWBIE", "password": Self.password])
            #expect(again.status == .conflict)
            for (name, password) in [
                ("a b", Self.password), ("ok", "short"), ("", Self.password), ("../x", Self.password),
            ] {
                let reply = try await api.request(.post, "/api/users", json: ["name": name, "password": password])
                #expect(reply.status == .unprocessableContent, "\(name) / \(password)")
            }
        }
    }

    @Test func palettesBelongToTheirUserAndLinkHoldersSeeTheBuiltIns() async throws {
        let world = try await World.make()
        try await withAPI(access: testAccounts, stores: world.stores) { api in
            let ada = try await Self.signIn("ada", api: api)
            let eve = try await Self.signIn("eve", api: api)
            let made = try await api.request(.post, "/api/palettes", json: ["name": "Ada's own"], headers: ada)
            #expect(made.status == .created)
            func names(_ headers: HTTPFields) async throws -> [String] {
                (try await api.request(.get, "/api/palettes", headers: headers).json["palettes"] as? [[String: Any]]
                    ?? [])
                    .compactMap { $0["name"] as? String }
            }
            #expect(try await names(ada).contains("Ada's own"))
            #expect(try await !names(eve).contains("Ada's own"))
            let link: HTTPFields = [.cookie: "\(Cookies.links)=\(world.editLink)"]
            #expect(try await names(link).count == 9)
            let refused = try await api.request(.post, "/api/palettes", json: ["name": "x"], headers: link)
            #expect(refused.status == .unauthorized)
        }
    }
}
