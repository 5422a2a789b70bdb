import AsyncHTTPClient
import EmojiArtServer
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// `emojiart-bench server` (continued): background images.
///
/// - Time from setting a URL background (an edit through the API) to the document's
///   `backgroundState` being `found`, for a 5 MB PNG served by a stub on loopback: download,
///   structure check, every pixel decoded, SHA-256, stored. Each round uses a new URL, so
///   nothing comes from the URL cache; the time includes the client polling every 2 ms.
/// - Serving a stored image from `/api/images/<sha256>`: requests/s and latency with 8
///   concurrent clients, for the 5 MB image and for a revalidation (`If-None-Match` → 304).
enum BackgroundBenchmarks {
    static func run(smoke: Bool, into report: inout Report) async throws {
        let image = noisePNG(width: smoke ? 64 : 1_280, height: smoke ? 48 : 1_366)
        let stub = StubImageServer(image: image)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "emojiart-bench-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let rows: [(String, String)] = try await stub.run { stubBase in
            var configuration = ServerConfiguration()
            configuration.port = 0
            configuration.dataDirectory = folder.path
            configuration.fetchPolicy = .init(allowing: "127.0.0.1/32")
            configuration.fetchPolicy.allowsPublicAddresses = false
            return try await ServerBenchmarks.withServer(configuration) { base in
                let client = HTTPClient.shared
                let id = try await ServerBenchmarks.createDocument(base, client: client)
                var times: [Double] = []
                var imageURL = ""
                for round in 0..<(smoke ? 2 : 10) {
                    let (seconds, url) = try await timeToFound(
                        base, document: id, background: "\(stubBase)image-\(round).png", client: client)
                    times.append(seconds)
                    imageURL = url
                }
                let duration: Duration = smoke ? .milliseconds(300) : .seconds(5)
                let full = try await measureGets(base + imageURL.dropFirst(), etag: nil, for: duration, client: client)
                let etag = "\"\(imageURL.split(separator: "/").last ?? "")\""
                let revalidated = try await measureGets(
                    base + imageURL.dropFirst(), etag: etag, for: duration, client: client)
                return [
                    (
                        "URL background to found, \(format(Double(image.count) / 1e6, 1)) MB PNG from a local stub",
                        "median \(format(ServerBenchmarks.median(times) * 1000)) ms, max \(format((times.max() ?? 0) * 1000)) ms (\(times.count) rounds)"
                    ),
                    (
                        "stored image served, \(format(Double(image.count) / 1e6, 1)) MB, 8 clients",
                        "\(format(full.perSecond, 0)) requests/s, p50 \(format(full.p50 * 1000)) ms, p99 \(format(full.p99 * 1000)) ms"
                    ),
                    (
                        "stored image revalidated (304), 8 clients",
                        "\(format(revalidated.perSecond, 0)) requests/s, p50 \(format(revalidated.p50 * 1000)) ms, p99 \(format(revalidated.p99 * 1000)) ms"
                    ),
                ]
            }
        }
        for (name, value) in rows { report.add(name, value) }
    }

    /// Sets the background and polls the document until its background is found; returns the
    /// seconds taken and the image's URL on the server.
    static func timeToFound(
        _ base: String, document: String, background: String, client: HTTPClient
    ) async throws -> (Double, String) {
        let current = try await client.execute(
            HTTPClientRequest(url: "\(base)api/documents/\(document)"), timeout: .seconds(10))
        let currentBody = try await current.body.collect(upTo: 16 * 1024 * 1024)
        let currentJSON = try JSONSerialization.jsonObject(with: Data(currentBody.readableBytesView)) as? [String: Any]
        let version = try require(currentJSON?["version"] as? Int)
        var request = HTTPClientRequest(url: "\(base)api/documents/\(document)/edits")
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(
            ByteBuffer(
                string: #"{"baseVersion":\#(version),"edit":{"type":"setBackground","background":"\#(background)"}}"#))
        let start = ContinuousClock.now
        let set = try await client.execute(request, timeout: .seconds(10))
        _ = try await set.body.collect(upTo: 1024 * 1024)
        guard set.status == .ok else { throw BenchmarkError("setting the background answered \(set.status)") }
        while ContinuousClock.now - start < .seconds(30) {
            let response = try await client.execute(
                HTTPClientRequest(url: "\(base)api/documents/\(document)"), timeout: .seconds(10))
            let body = try await response.body.collect(upTo: 16 * 1024 * 1024)
            let json = try JSONSerialization.jsonObject(with: Data(body.readableBytesView)) as? [String: Any]
            let state = json?["backgroundState"] as? [String: Any]
            switch state?["status"] as? String {
            case "found":
                return (seconds(ContinuousClock.now - start), state?["imageURL"] as? String ?? "")
            case "failed":
                throw BenchmarkError("the background failed: \(state?["reason"] ?? "")")
            default:
                try await Task.sleep(for: .milliseconds(2))
            }
        }
        throw BenchmarkError("the background was not found within 30 s")
    }

    static func measureGets(
        _ url: String, etag: String?, for duration: Duration, client: HTTPClient
    ) async throws -> LoadResult {
        try await measureClosedLoop(clients: 8, for: duration) {
            var request = HTTPClientRequest(url: url)
            if let etag { request.headers.add(name: "If-None-Match", value: etag) }
            let response = try await client.execute(request, timeout: .seconds(10))
            _ = try await response.body.collect(upTo: 64 * 1024 * 1024)
            guard response.status == (etag == nil ? .ok : .notModified) else {
                throw BenchmarkError("the image answered \(response.status)")
            }
        }
    }

    /// An RGB PNG of random pixels, deflate-stored (random pixels don't compress anyway).
    static func noisePNG(width: Int, height: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        var raw: [UInt8] = []
        raw.reserveCapacity((width * 3 + 1) * height)
        for _ in 0..<height {
            raw.append(0)
            for _ in 0..<width * 3 { raw.append(UInt8.random(in: 0...255, using: &generator)) }
        }
        var zlib: [UInt8] = [0x78, 0x01]
        var offset = 0
        repeat {
            let count = min(65_535, raw.count - offset)
            let last: UInt8 = offset + count == raw.count ? 1 : 0
            zlib += [last, UInt8(count & 0xFF), UInt8(count >> 8), UInt8(~count & 0xFF), UInt8((~count >> 8) & 0xFF)]
            zlib += raw[offset..<offset + count]
            offset += count
        } while offset < raw.count
        var (a, b): (UInt32, UInt32) = (1, 0)
        for byte in raw {
            a = (a + UInt32(byte)) % 65_521
            b = (b + a) % 65_521
        }
        zlib += bigEndian(b << 16 | a)
        var png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        png += chunk("IHDR", bigEndian(UInt32(width)) + bigEndian(UInt32(height)) + [8, 2, 0, 0, 0])
        png += chunk("IDAT", zlib)
        png += chunk("IEND", [])
        return png
    }

    static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let body = Array(type.utf8) + data
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in body {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return bigEndian(UInt32(data.count)) + body + bigEndian(~crc)
    }

    static func bigEndian(_ value: UInt32) -> [UInt8] {
        [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> $0) }
    }
}

/// A loopback HTTP server answering every path with one PNG, standing in for a remote host.
struct StubImageServer {
    let image: [UInt8]

    func run<T: Sendable>(_ body: @escaping @Sendable (String) async throws -> T) async throws -> T {
        let router = Router()
        let bytes = ByteBuffer(bytes: image)
        router.get("{name}") { _, _ in
            Response(
                status: .ok, headers: [.contentType: "image/png"], body: .init(byteBuffer: bytes))
        }
        let (urls, continuation) = AsyncStream.makeStream(of: String.self)
        let app = Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in continuation.yield("http://127.0.0.1:\(channel.localAddress?.port ?? 0)/") })
        return try await whileServing(app, urls: urls, body)
    }
}
