import EmojiArtServer
import EmojiArtStore
import EmojiArtStoreSQLite
import Foundation
import HTTPTypes
import Hummingbird
import Testing

@Suite("The emoji catalogue's API: search, its files, what the picker remembers, replacing emojis")
struct EmojiAPITests {
    @Test func searchRanksInTheLanguageAskedForWithEnglishBehind() async throws {
        try await withAPI { api in
            let fox = try await api.request(.get, "/api/emoji?q=fuchs&lang=de")
            #expect(fox.status == .ok)
            #expect(fox.json["language"] as? String == "de")
            let first = try #require((fox.json["results"] as? [[String: Any]])?.first)
            #expect(first["emoji"] as? String == "🦊")
            #expect(first["name"] as? String == "Fuchs")
            #expect(first["group"] as? String == "Animals & Nature")
            #expect((first["keywords"] as? [String])?.isEmpty == false)
            // English is searched too; an unknown language is English.
            for uri in [
                "/api/emoji?q=fox&lang=de", "/api/emoji?q=fox&lang=tlh", "/api/emoji?q=%F0%9F%A6%8A",
                "/api/emoji?q=f%C3%BCchs&lang=de",
            ] {
                let reply = try await api.request(.get, uri)
                #expect(((reply.json["results"] as? [[String: Any]])?.first?["emoji"] as? String) == "🦊", "\(uri)")
            }
            #expect(try await api.request(.get, "/api/emoji?q=fox&lang=tlh").json["language"] as? String == "en")
            // Without lang, Accept-Language chooses.
            let french = try await api.request(
                .get, "/api/emoji?q=renard", headers: [.acceptLanguage: "fr-CA, de;q=0.8"])
            #expect(french.json["language"] as? String == "fr")
            // As a form or URLSearchParams writes it: + is a space, %2B a plus.
            for uri in ["/api/emoji?q=palm+tree", "/api/emoji?q=palm%20tree", "/api/emoji?limit=5&q=palm+tree"] {
                let reply = try await api.request(.get, uri)
                #expect(((reply.json["results"] as? [[String: Any]])?.first?["emoji"] as? String) == "🌴", "\(uri)")
            }
            let limited = try await api.request(.get, "/api/emoji?q=a&limit=3")
            #expect((limited.json["results"] as? [Any])?.count == 3)
            let nothing = try await api.request(.get, "/api/emoji?q=zzzqqqxx")
            #expect(nothing.status == .ok && (nothing.json["results"] as? [Any])?.isEmpty == true)
        }
    }

    @Test(
        "bad queries are a JSON 400",
        arguments: [
            "/api/emoji", "/api/emoji?q=", "/api/emoji?q=%20%20", "/api/emoji?q=" + String(repeating: "a", count: 101),
            "/api/emoji?q=fox%00", "/api/emoji?q=a%0Ab", "/api/emoji?q=fox&limit=0", "/api/emoji?q=fox&limit=201",
            "/api/emoji?q=fox&limit=ten", "/api/emoji?q=%E0%A4%A", "/api/emoji?q=+", "/api/emoji?q=%CC%81",
            "/api/emoji?q=%E2%80%A8",
            "/api/emoji?q=fox&lang=" + String(repeating: "x", count: 36),
        ])
    func badQueries(_ uri: String) async throws {
        try await withAPI { api in
            let reply = try await api.request(.get, uri)
            #expect(reply.status == .badRequest)
            #expect(reply.errorCode == "bad_request" && reply.errorMessage?.isEmpty == false)
        }
    }

    @Test func theCatalogueFilesAreCachedForAYearUnderTheirHash() async throws {
        try await withAPI { api in
            let index = try await api.request(.get, "/emoji/index.json")
            #expect(index.status == .ok && index.headers[.cacheControl] == "no-cache")
            let languages = try #require(index.json["languages"] as? [String: [String: Any]])
            let german = try #require(languages["de"])
            let file = try #require(german["file"] as? String)
            let hash = try #require(german["hash"] as? String)
            let current = try await api.request(.get, "/emoji/\(file)?v=\(hash)")
            #expect(current.status == .ok)
            #expect(current.headers[.cacheControl] == "public, max-age=31536000, immutable")
            #expect(current.headers[.contentType] == "application/json; charset=utf-8")
            #expect(((current.json["🦊"] as? [String])?.first) == "Fuchs")
            // An old hash (a page from before an upgrade) gets today's file, revalidated.
            let stale = try await api.request(.get, "/emoji/\(file)?v=0000")
            #expect(stale.status == .ok && stale.headers[.cacheControl] == "no-cache")
            for name in ["..%2FEmojiCatalogue.swift", "LICENSE", "nope.json", "%2E%2E"] {
                #expect(try await api.request(.get, "/emoji/\(name)").status == .notFound, "\(name)")
            }
        }
    }

    @Test func preferencesAreKeptPerAccount() async throws {
        let stores = Stores.inMemory()
        let ada = User(name: "ada")
        try await stores.users.addUser(ada, passwordHash: try await PasswordHasher(cost: 4).hash(AccessTests.password))
        try await withAPI(access: testAccounts, stores: stores) { api in
            #expect(try await api.request(.get, "/api/session/preferences").status == .unauthorized)
            #expect(
                try await api.request(.put, "/api/session/preferences", json: ["skinTone": 1, "recentEmojis": []])
                    .status == .unauthorized)
            let signedIn = try await AccessTests.signIn("ada", api: api)
            let fresh = try await api.request(.get, "/api/session/preferences", headers: signedIn)
            #expect(fresh.status == .ok)
            #expect(fresh.json["skinTone"] as? Int == 0 && (fresh.json["recentEmojis"] as? [String]) == [])
            let kept = try await api.request(
                .put, "/api/session/preferences", json: ["skinTone": 3, "recentEmojis": ["🦊", "👋🏽"]], headers: signedIn)
            #expect(kept.status == .ok)
            #expect(
                try await stores.users.preferences(of: ada.id)
                    == UserPreferences(skinTone: 3, recentEmojis: ["🦊", "👋🏽"]))
            let bad: [[String: Any]] = [
                ["skinTone": 6, "recentEmojis": []], ["skinTone": -1, "recentEmojis": []],
                ["skinTone": 0, "recentEmojis": ["fox"]], ["skinTone": 0, "recentEmojis": ["🦊", "🦊"]],
                ["skinTone": 0, "recentEmojis": Array(repeating: "🦊", count: 37)], ["skinTone": 0],
            ]
            for body in bad {
                let reply = try await api.request(.put, "/api/session/preferences", json: body, headers: signedIn)
                #expect([.badRequest, .unprocessableContent].contains(reply.status), "\(body): \(reply.status)")
            }
            #expect(try await stores.users.preferences(of: ada.id).skinTone == 3, "bad input changed nothing")
        }
        // Local mode: the browser keeps them.
        try await withAPI { api in
            let local = try await api.request(.get, "/api/session/preferences")
            #expect(local.status == .notFound)
        }
    }

    @Test func replaceEmojiIsOneUndoableEditAndRefusesBadInput() async throws {
        try await withAPI { api in
            let id = try await api.createDocument()
            let added = try await api.edit(
                id, base: 0,
                [
                    ["type": "addEmoji", "text": "🐶", "position": ["x": 1, "y": 2], "size": 40],
                    ["type": "addEmoji", "text": "🐱", "position": ["x": 3, "y": 4], "size": 50],
                ])
            #expect(added.status == .ok)
            for bad: [String: Any] in [
                ["type": "replaceEmoji", "ids": [1], "text": "🌴🌴"], ["type": "replaceEmoji", "ids": [1], "text": "x"],
                ["type": "replaceEmoji", "ids": [], "text": "🌴"], ["type": "replaceEmoji", "ids": [9], "text": "🌴"],
            ] {
                let reply = try await api.edit(id, base: 1, [bad])
                #expect(reply.status == .unprocessableContent, "\(bad): \(reply.text)")
            }
            let replaced = try await api.edit(id, base: 1, [["type": "replaceEmoji", "ids": [1, 2], "text": "🌴"]])
            #expect(replaced.status == .ok, "\(replaced.text)")
            let document = try await api.request(.get, "/api/documents/\(id)").json
            let emojis = try #require(
                (document["document"] as? [String: Any])?["emojis"] as? [[String: Any]] ?? document["emojis"]
                    as? [[String: Any]])
            #expect(emojis.map { $0["text"] as? String } == ["🌴", "🌴"])
            let undone = try await api.request(.post, "/api/documents/\(id)/undo", json: [String: Any]())
            #expect(undone.status == .ok, "\(undone.text)")
            let after = try await api.request(.get, "/api/documents/\(id)").json
            let texts =
                ((after["document"] as? [String: Any])?["emojis"] as? [[String: Any]] ?? after["emojis"]
                as? [[String: Any]])?
                .map { $0["text"] as? String }
            #expect(texts == ["🐶", "🐱"])
        }
    }
}
