import Foundation
import Hummingbird
import Testing

@Suite("The palettes API")
struct PalettesAPITests {
    func palettes(_ api: APIClient) async throws -> [[String: Any]] {
        try await api.request(.get, "/api/palettes").json["palettes"] as? [[String: Any]] ?? []
    }

    @Test func builtInsComeFirstInOrder() async throws {
        try await withAPI { api in
            let names = try await palettes(api).compactMap { $0["name"] as? String }
            #expect(
                names == [
                    "Vehicles", "Sports", "Music", "Animals", "Animal Faces", "Flora", "Weather", "COVID", "Faces",
                ])
        }
    }

    @Test func createEditMoveAndDelete() async throws {
        try await withAPI { api in
            let created = try await api.request(.post, "/api/palettes", json: ["name": "<script>", "index": 1])
            #expect(created.status == .created)
            let id = try #require(created.json["id"] as? String)
            let added = try await api.request(.patch, "/api/palettes/\(id)", json: ["addEmojis": "a😀b😀🚀"])
            #expect(added.json["emojis"] as? String == "😀🚀")
            let removed = try await api.request(.patch, "/api/palettes/\(id)", json: ["removeEmoji": "😀", "index": 0])
            #expect(removed.json["emojis"] as? String == "🚀")
            #expect(try await palettes(api).first?["name"] as? String == "<script>")
            let badName = try await api.request(.patch, "/api/palettes/\(id)", json: ["name": ""])
            #expect(badName.status == .unprocessableContent)
            let unknown = try await api.request(.patch, "/api/palettes/\(UUID())", json: ["name": "x"])
            #expect(unknown.status == .notFound)
            #expect(unknown.errorCode == "not_found")
        }
    }

    /// Issue #38: a palette made offline is sent with the id the browser made, perhaps twice (its
    /// answer lost): the second time changes nothing, and so does each change after it, again.
    @Test func everyChangeSentTwiceIsAppliedOnce() async throws {
        try await withAPI { api in
            let id = UUID().uuidString
            let body: [String: Any] = ["id": id, "name": "Offline", "emojis": "🐶", "index": 0]
            let first = try await api.request(.post, "/api/palettes", json: body)
            #expect(first.status == .created && first.json["id"] as? String == id)
            let renamed = try await api.request(.patch, "/api/palettes/\(id)", json: ["name": "Dogs"])
            #expect(renamed.status == .ok)
            // The create again, late: that palette as it is now; nothing added, nothing renamed back.
            let again = try await api.request(.post, "/api/palettes", json: body)
            #expect(again.status == .ok && again.json["name"] as? String == "Dogs")
            for _ in 0..<2 {
                #expect(try await api.request(.patch, "/api/palettes/\(id)", json: ["addEmojis": "🐕🐶"]).status == .ok)
            }
            let all = try await palettes(api)
            #expect(all.count == 10 && all.first?["emojis"] as? String == "🐕🐶")
            #expect(try await api.request(.delete, "/api/palettes/\(id)").status == .noContent)
            #expect(try await api.request(.delete, "/api/palettes/\(id)").status == .notFound)
            #expect(try await palettes(api).count == 9)
            let badID = try await api.request(.post, "/api/palettes", json: ["id": "not-a-uuid", "name": "x"])
            #expect(badID.status == .badRequest)
        }
    }

    @Test func theLastPaletteCannotBeDeleted() async throws {
        try await withAPI { api in
            let all = try await palettes(api)
            for palette in all.dropLast() {
                let id = try #require(palette["id"] as? String)
                #expect(try await api.request(.delete, "/api/palettes/\(id)").status == .noContent)
            }
            let lastID = try #require(all.last?["id"] as? String)
            let refused = try await api.request(.delete, "/api/palettes/\(lastID)")
            #expect(refused.status == .conflict)
            #expect(refused.errorCode == "last_palette")
            #expect(try await palettes(api).count == 1)
        }
    }

    @Test func theOriginalPaletteFilesImport() async throws {
        try await withAPI { api in
            let bytes = Array(
                try Data(contentsOf: fixturesDirectory.appendingPathComponent("palettes-2021-Default.json")))
            let reply = try await api.request(.post, "/api/palettes/import", bytes: bytes)
            #expect(reply.json["added"] as? Int == 0)
            #expect(reply.json["skipped"] as? Int == 9)
            let bad = try await api.request(.post, "/api/palettes/import", bytes: Array("[{}]".utf8))
            #expect(bad.status == .unprocessableContent)
        }
    }
}
