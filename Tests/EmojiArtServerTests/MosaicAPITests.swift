import EmojiArtImaging
import Foundation
import HTTPTypes
import Testing

@testable import EmojiArtServer

/// `POST/GET /api/documents/{id}/mosaic` (issue #35).
@Suite struct MosaicAPITests {
    static func image(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: fixturesDirectory.appendingPathComponent("images/\(name)")))
    }

    /// A document with the 160×120 gradient as its background, an emoji on it and one beside it.
    static func document(_ api: APIClient) async throws -> String {
        let id = try await api.createDocument()
        let put = try await api.request(
            .put, "/api/documents/\(id)/background?baseVersion=0", bytes: try image("gradient-160x120.png"))
        #expect(put.status == .ok)
        let edited = try await api.edit(id, base: 1, [addEmoji("🐶", x: 0, y: 0), addEmoji("🐱", x: 500, y: 0)])
        #expect(edited.status == .ok)
        return id
    }

    static func emojis(_ reply: APIClient.Reply) -> [[String: Any]] {
        reply.json["emojis"] as? [[String: Any]] ?? []
    }

    @Test func aMosaicIsOneUndoableStep() async throws {
        try await withAPI { api in
            let id = try await Self.document(api)
            let made = try await api.request(
                .post, "/api/documents/\(id)/mosaic",
                json: ["columns": 16, "emojis": "all", "dither": true, "fit": "background", "replace": true])
            #expect(made.status == .ok, "\(made.text)")
            #expect(made.json["undoActionName"] as? String == "Make Mosaic")
            #expect(made.json["version"] as? Int == 3)
            let placed = Self.emojis(made)
            // 16 × 12 cells of 10 points; 🐶 on the picture was replaced, 🐱 beside it kept.
            #expect(placed.count == 16 * 12 + 1)
            #expect(placed.contains { $0["text"] as? String == "🐱" })
            #expect(!placed.contains { $0["text"] as? String == "🐶" })
            #expect(placed.filter { $0["size"] as? Int == 10 }.count == 16 * 12)
            let undone = try await api.request(.post, "/api/documents/\(id)/undo")
            #expect(Self.emojis(undone).map { $0["text"] as? String } == ["🐶", "🐱"])
            let redone = try await api.request(.post, "/api/documents/\(id)/redo")
            #expect(Self.emojis(redone).count == 16 * 12 + 1)
        }
    }

    /// A mosaic sent again under its `Idempotency-Key` is answered as placed — even after the
    /// background went, when none could be made — and is not placed twice; the same key
    /// with other settings is `422`. Defaults spelled out are the same request.
    @Test func aMosaicSentAgainWithItsKeyIsPlacedOnce() async throws {
        try await withAPI { api in
            let id = try await Self.document(api)
            let headers: HTTPFields = [.idempotencyKey: "mosaic-1"]
            let made = try await api.request(
                .post, "/api/documents/\(id)/mosaic", json: ["columns": 16], headers: headers)
            #expect(made.status == .ok, "\(made.text)")
            #expect(made.json["version"] as? Int == 3)
            let cleared = try await api.edit(id, base: 3, [["type": "setBackground", "background": NSNull()]])
            #expect(cleared.status == .ok)
            let again = try await api.request(
                .post, "/api/documents/\(id)/mosaic",
                json: ["columns": 16, "emojis": "all", "dither": false, "fit": "background", "replace": false],
                headers: headers)
            #expect(again.status == .ok, "\(again.text)")
            #expect(again.json["version"] as? Int == 4)
            let other = try await api.request(
                .post, "/api/documents/\(id)/mosaic", json: ["columns": 20], headers: headers)
            #expect(other.status == .unprocessableContent)
            #expect(other.errorCode == "idempotency_key_reused")
            let now = try await api.request(.get, "/api/documents/\(id)")
            #expect(now.json["version"] as? Int == 4)
            #expect(Self.emojis(now).count == 16 * 12 + 2)
        }
    }

    @Test func aRegionKeepingWhatIsThere() async throws {
        try await withAPI { api in
            let id = try await Self.document(api)
            let made = try await api.request(
                .post, "/api/documents/\(id)/mosaic",
                json: [
                    "columns": 10, "emojis": "🟥🟧🟨🟩🟦🟪⬛⬜", "fit": "region",
                    "region": ["x": 80, "y": 0, "width": 80, "height": 60], "replace": false,
                ])
            #expect(made.status == .ok, "\(made.text)")
            let mosaic = Self.emojis(made).filter { $0["size"] as? Int == 8 }
            #expect(mosaic.count == 10 * 8)
            // The region is the picture's top-right quarter: x 0…80, y 0…60 in document points.
            for emoji in mosaic {
                let (x, y) = (emoji["x"] as? Int ?? -1, emoji["y"] as? Int ?? -1)
                #expect((0...80).contains(x) && (0...60).contains(y), "\(x), \(y)")
            }
            #expect(Self.emojis(made).contains { $0["text"] as? String == "🐶" })
        }
    }

    @Test func aPreviewChangesNothing() async throws {
        try await withAPI { api in
            let id = try await Self.document(api)
            let preview = try await api.request(
                .post, "/api/documents/\(id)/mosaic?preview=1", json: ["columns": 20, "emojis": "all"])
            #expect(preview.status == .ok)
            #expect(preview.headers[.contentType] == "image/png")
            #expect(preview.headers[HTTPField.Name("EmojiArt-Mosaic-Columns")!] == "20")
            #expect(preview.headers[HTTPField.Name("EmojiArt-Mosaic-Rows")!] == "15")
            #expect(preview.headers[HTTPField.Name("EmojiArt-Mosaic-Emojis")!] == "300")
            let bitmap = try ImageDecoder.bitmap(Data(preview.bytes))
            #expect(bitmap.width == 640 && bitmap.height == 480)
            let squares = "🟥🟦".addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            let get = try await api.request(
                .get, "/api/documents/\(id)/mosaic?columns=12&emojis=\(squares)&dither=1&fit=region&region=0,0,80,60")
            #expect(get.status == .ok && get.headers[.contentType] == "image/png")
            #expect(get.headers[HTTPField.Name("EmojiArt-Mosaic-Rows")!] == "9")
            let shown = try await api.request(.get, "/api/documents/\(id)")
            #expect(shown.json["version"] as? Int == 2)
        }
    }

    @Test func transparentCellsStayEmpty() async throws {
        try await withAPI { api in
            let id = try await api.createDocument()
            _ = try await api.request(
                .put, "/api/documents/\(id)/background?baseVersion=0", bytes: try Self.image("logo-120x120-alpha.png"))
            let made = try await api.request(.post, "/api/documents/\(id)/mosaic", json: ["columns": 12])
            let count = Self.emojis(made).count
            // A disc of radius 40 in a 120-pixel square: about π·4²≈50 of 144 cells.
            #expect(count > 36 && count < 64, "\(count)")
        }
    }

    @Test func badInputIsAClearErrorAndChangesNothing() async throws {
        try await withAPI { api in
            let id = try await Self.document(api)
            let cases: [([String: Any], HTTPResponse.Status, String)] = [
                (["columns": 9], .unprocessableContent, "out_of_range"),
                (["columns": 301], .unprocessableContent, "out_of_range"),
                (
                    ["columns": 10, "fit": "region", "region": ["x": 100, "y": 0, "width": 100, "height": 50]],
                    .unprocessableContent, "out_of_range"
                ),
                (["columns": 10, "fit": "region"], .badRequest, "bad_request"),
                (["columns": 10, "fit": "circle"], .badRequest, "bad_request"),
                (["columns": 10, "emojis": "abc"], .unprocessableContent, "invalid_emoji"),
                (["columns": 10, "emojis": " , "], .unprocessableContent, "invalid_emoji"),
                (["columns": 10, "emojis": "palette:\(UUID())"], .unprocessableContent, "invalid_emoji"),
                (["columns": "ten"], .badRequest, "bad_request"),
                (["emojis": "all"], .badRequest, "bad_request"),
            ]
            for (body, status, code) in cases {
                for path in ["/api/documents/\(id)/mosaic", "/api/documents/\(id)/mosaic?preview=1"] {
                    let reply = try await api.request(.post, path, json: body)
                    #expect(reply.status == status && reply.errorCode == code, "\(body): \(reply.status) \(reply.text)")
                    #expect(reply.errorMessage?.isEmpty == false)
                }
            }
            let shown = try await api.request(.get, "/api/documents/\(id)")
            #expect(shown.json["version"] as? Int == 2)
            let blank = try await api.createDocument()
            let none = try await api.request(.post, "/api/documents/\(blank)/mosaic", json: ["columns": 10])
            #expect(none.status == .unprocessableContent && none.errorCode == "invalid_background")
            let missing = try await api.request(.post, "/api/documents/\(UUID())/mosaic", json: ["columns": 10])
            #expect(missing.status == .notFound)
        }
    }

    @Test func aPaletteOfTheRequester() async throws {
        try await withAPI { api in
            let id = try await Self.document(api)
            let created = try await api.request(.post, "/api/palettes", json: ["name": "Squares", "emojis": "🟥🟦"])
            let palette = try #require(created.json["id"] as? String)
            let made = try await api.request(
                .post, "/api/documents/\(id)/mosaic", json: ["columns": 10, "emojis": "palette:\(palette)"])
            #expect(made.status == .ok, "\(made.text)")
            let texts = Set(Self.emojis(made).compactMap { $0["text"] as? String })
            #expect(texts.subtracting(["🐶", "🐱"]).isSubset(of: ["🟥", "🟦"]))
        }
    }
}
