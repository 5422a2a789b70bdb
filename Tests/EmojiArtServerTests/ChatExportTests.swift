import EmojiArtImaging
import Foundation
import HTTPTypes
import Testing

@testable import EmojiArtServer

/// Pictures people paste into chat (issue #35): emoji text and GIFs.
@Suite struct ChatExportTests {
    @Test func textIsRowsOfEmoji() async throws {
        try await withAPI { api in
            let id = try await api.createDocument()
            let edited = try await api.edit(
                id, base: 0,
                [
                    addEmoji("🟥", x: 0, y: 0, size: 20), addEmoji("🟦", x: 40, y: 0, size: 20),
                    addEmoji("🌲", x: 20, y: -20, size: 20),
                ])
            #expect(edited.status == .ok)
            let text = try await api.request(.get, "/api/documents/\(id)/export?format=text")
            #expect(text.status == .ok)
            #expect(text.headers[.contentType] == "text/plain; charset=utf-8")
            #expect(text.text == "🟥\u{3000}🟦\n\u{3000}🌲\n")
            let squares = try await api.request(.get, "/api/documents/\(id)/export?format=text&filler=square")
            #expect(squares.text == "🟥⬜🟦\n⬜🌲\n")
            let chosen = try await api.request(.get, "/api/documents/\(id)/export?format=text&ids=2-3")
            #expect(chosen.text == "\u{3000}🟦\n🌲\n")
            let narrow = try await api.request(.get, "/api/documents/\(id)/export?format=text&columns=1")
            #expect(narrow.text == "🟦\n🌲\n")
            for bad in ["columns=0", "columns=501", "filler=dots", "ids=3-1", "ids=a", "ids=-1", "ids=0-200000"] {
                let reply = try await api.request(.get, "/api/documents/\(id)/export?format=text&\(bad)")
                #expect(reply.status == .badRequest && reply.errorCode == "bad_request", "\(bad)")
            }
        }
    }

    @Test func aStillGIF() async throws {
        try await withAPI { api in
            let id = try await api.createDocument()
            _ = try await api.edit(id, base: 0, [addEmoji("🐶", size: 64)])
            let gif = try await api.request(.get, "/api/documents/\(id)/picture?format=gif&scale=3")
            #expect(gif.status == .ok && gif.headers[.contentType] == "image/gif")
            #expect(Array(gif.bytes.prefix(6)) == Array("GIF89a".utf8))
            let info = try ImageDecoder.decode(Data(gif.bytes))
            #expect(info.width <= 800 && info.height <= 800 && info.width > 100)
        }
    }

    @Test func aReplayAsALoopingGIF() async throws {
        try await withAPI { api in
            let id = try await api.createDocument()
            for version in 0..<4 { _ = try await api.edit(id, base: version, [addEmoji("🎈", x: version * 30)]) }
            let gif = try await api.request(.get, "/api/documents/\(id)/replay?format=gif&frames=5&seconds=2")
            #expect(gif.status == .ok, "\(gif.text)")
            #expect(gif.headers[.contentType] == "image/gif")
            #expect(gif.headers[.contentDisposition]?.contains("replay.gif") == true)
            #expect(String(decoding: gif.bytes, as: UTF8.self).contains("NETSCAPE2.0"))
            let info = try ImageDecoder.decode(Data(gif.bytes))
            #expect(max(info.width, info.height) <= 800)
            let bad = try await api.request(.get, "/api/documents/\(id)/replay?format=webm")
            #expect(bad.status == .badRequest)
        }
    }
}
