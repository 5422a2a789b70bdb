import Foundation
import HTTPTypes
import Hummingbird
import Testing

@Suite("The images API: content-addressed, cached forever")
struct ImagesAPITests {
    func fixtureImage(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: fixturesDirectory.appendingPathComponent("images/\(name)")))
    }

    @Test func uploadedImagesAreServedByTheirHash() async throws {
        try await withAPI { api in
            let jpeg = try fixtureImage("red-7x5.jpg")
            let uploaded = try await api.request(.post, "/api/images", bytes: jpeg)
            #expect(uploaded.status == .created)
            let id = try #require(uploaded.json["id"] as? String)
            #expect(id.count == 64)
            #expect(uploaded.json["url"] as? String == "/api/images/\(id)")
            #expect(uploaded.json["mimeType"] as? String == "image/jpeg")
            #expect(uploaded.json["width"] as? Int == 7)
            #expect(uploaded.json["height"] as? Int == 5)
            // The same bytes again: the same image.
            #expect(try await api.request(.post, "/api/images", bytes: jpeg).json["id"] as? String == id)

            let served = try await api.request(.get, "/api/images/\(id)")
            #expect(served.status == .ok)
            #expect(served.bytes == jpeg)
            #expect(served.headers[.contentType] == "image/jpeg")
            #expect(served.headers[.eTag] == "\"\(id)\"")
            // Asked again every time: access to it can end (docs/OFFLINE.md, "Lost access").
            #expect(served.headers[.cacheControl] == "private, no-cache")
            // Served again, from the server's memory this time: the same bytes and headers.
            let again = try await api.request(.get, "/api/images/\(id)")
            #expect(again.bytes == jpeg)
            #expect(again.headers[.contentType] == "image/jpeg")

            let cached = try await api.client.execute(
                uri: "/api/images/\(id)", method: .get, headers: [.ifNoneMatch: "\"\(id)\""]
            ) { $0 }
            #expect(cached.status == .notModified)
            #expect(cached.body.readableBytes == 0)
        }
    }

    @Test func badImagesAndUnknownIdsAreRefused() async throws {
        try await withAPI { api in
            let html = try await api.request(.post, "/api/images", bytes: Array("<html>".utf8))
            #expect(html.status == .unsupportedMediaType)
            let gif = try fixtureImage("anim-4x6.gif")
            let truncated = try await api.request(.post, "/api/images", bytes: Array(gif.dropLast(1)))
            #expect(truncated.status == .unprocessableContent)
            #expect(truncated.errorCode == "invalid_background")
            // Whole chunks with valid CRCs, but the compressed pixels damaged: only decoding tells.
            var png = try fixtureImage("noise-64x48.png")
            let idat = try #require((8..<png.count - 4).first { png[$0..<$0 + 4].elementsEqual("IDAT".utf8) })
            let length = png[idat - 4..<idat].reduce(0) { $0 << 8 | Int($1) }
            png[idat + 4 + length / 2] ^= 0x5A
            let crc = crc32(png[idat..<idat + 4 + length])
            png.replaceSubrange(
                idat + 4 + length..<idat + 8 + length,
                with: [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: crc >> $0) })
            let damaged = try await api.request(.post, "/api/images", bytes: png)
            #expect(damaged.status == .unprocessableContent)
            #expect(damaged.errorMessage?.contains("the PNG data is damaged") == true)
            for path in [
                "/api/images/\(String(repeating: "a", count: 64))", "/api/images/not-a-hash", "/api/images/../x",
            ] {
                let reply = try await api.request(.get, path)
                #expect((400..<500).contains(reply.status.code), "\(path)")
            }
            let big = try await api.request(
                .post, "/api/images", bytes: [UInt8](repeating: 0, count: 16 * 1024 * 1024 + 1))
            #expect(big.status == .contentTooLarge)
        }
    }
}

/// The PNG chunk checksum (ISO 3309 CRC-32).
func crc32(_ bytes: some Sequence<UInt8>) -> UInt32 {
    var crc: UInt32 = 0xFFFF_FFFF
    for byte in bytes {
        crc ^= UInt32(byte)
        for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
    }
    return ~crc
}
