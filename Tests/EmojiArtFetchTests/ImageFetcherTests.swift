import EmojiArtFetch
import Foundation
import Hummingbird
import ServiceLifecycle
import Testing

/// A local image server for the fetcher's tests (no test ever reaches another machine).
enum StubImageServer {
    /// A real 7×5 PNG (Tests/Fixtures/images/red-7x5.png).
    static let png: [UInt8] = Array(
        (try? Data(
            contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent("Fixtures/images/red-7x5.png"))) ?? Data())

    static func bytes(_ bytes: [UInt8], type: String = "image/png") -> Response {
        var headers = HTTPFields()
        headers[.contentType] = type
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    static func redirect(_ location: String, status: HTTPResponse.Status = .found) -> Response {
        var headers = HTTPFields()
        headers[.location] = location
        return Response(status: status, headers: headers)
    }

    static func router() -> Router<BasicRequestContext> {
        let router = Router()
        router.get("/cat.png") { _, _ in bytes(png) }
        router.get("/mislabelled.jpg") { _, _ in bytes(png, type: "text/plain") }
        router.get("/redirect") { _, _ in redirect("/cat.png") }
        router.get("/dir/relative") { _, _ in redirect("../cat.png", status: .movedPermanently) }
        router.get("/loop") { _, _ in redirect("/loop") }
        router.get("/to-private") { _, _ in redirect("http://10.0.0.1/cat.png") }
        router.get("/to-ftp") { _, _ in redirect("ftp://example.com/cat.png") }
        router.get("/missing") { _, _ in Response(status: .notFound) }
        router.get("/page") { _, _ in bytes(Array("<html><body>not an image</body></html>".utf8), type: "text/html") }
        router.get("/drawing.svg") { _, _ in
            bytes(
                Array("<svg xmlns='http://www.w3.org/2000/svg'><script>alert(1)</script></svg>".utf8),
                type: "image/svg+xml")
        }
        router.get("/truncated.png") { _, _ in bytes(Array(png.dropLast(12))) }
        router.get("/huge") { _, _ in
            // 21 MiB streamed without a Content-Length: the cap must hold while streaming.
            Response(
                status: .ok, headers: [.contentType: "image/png"],
                body: .init { writer in
                    try await writer.write(ByteBuffer(bytes: png.dropLast(12)))
                    let chunk = ByteBuffer(repeating: 0, count: 1024 * 1024)
                    for _ in 0..<21 { try await writer.write(chunk) }
                    try await writer.finish(nil)
                })
        }
        router.get("/slow") { _, _ in
            try await Task.sleep(for: .seconds(3))
            return bytes(png)
        }
        return router
    }

    /// Runs the stub for the duration of `body`, passing its base URL.
    static func withServer(_ body: @Sendable (String) async throws -> Void) async throws {
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let app = Application(
            router: router(), configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { continuation.yield($0.localAddress?.port ?? 0) })
        let services = ServiceGroup(
            configuration: .init(services: [app], gracefulShutdownSignals: [], logger: app.logger))
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await services.run() }
            var iterator = ports.makeAsyncIterator()
            let port = await iterator.next() ?? 0
            try await body("http://127.0.0.1:\(port)")
            await services.triggerGracefulShutdown()
            try await group.waitForAll()
        }
    }
}

@Suite("The image fetcher", .serialized)
struct ImageFetcherTests {
    let stubOnly = AddressPolicy(allowing: "127.0.0.1/32")

    func fetcher(_ policy: AddressPolicy, totalTimeout: Duration = .seconds(20)) -> ImageFetcher {
        var limits = ImageFetcher.Limits()
        limits.totalTimeout = totalTimeout
        return ImageFetcher(policy: policy, limits: limits) { host in
            switch host {
            case "private.test": [IPAddress("10.0.0.1")!]
            case "mixed.test": [IPAddress("10.0.0.1")!, IPAddress("127.0.0.1")!]
            case "mapped.test": [IPAddress("::ffff:127.0.0.1")!]
            default: throw FetchError.network("unknown test host")
            }
        }
    }

    func failure(_ fetcher: ImageFetcher, _ url: String) async -> FetchError? {
        do {
            _ = try await fetcher.fetch(URL(string: url)!)
            return nil
        } catch {
            return error
        }
    }

    @Test func fetchesAndFollowsRedirects() async throws {
        try await StubImageServer.withServer { base in
            let direct = try await fetcher(stubOnly).fetch(URL(string: "\(base)/cat.png")!)
            #expect(direct.data == Data(StubImageServer.png))
            #expect(direct.mimeType == "image/png")
            #expect(direct.width == 7)
            #expect(direct.height == 5)
            let redirected = try await fetcher(stubOnly).fetch(URL(string: "\(base)/redirect")!)
            #expect(redirected.url.absoluteString == "\(base)/cat.png")
            let relative = try await fetcher(stubOnly).fetch(URL(string: "\(base)/dir/relative")!)
            #expect(relative.url.path == "/cat.png")
            // The bytes decide the type, not the label.
            #expect(try await fetcher(stubOnly).fetch(URL(string: "\(base)/mislabelled.jpg")!).mimeType == "image/png")
            // A host resolving to a refused and an allowed address uses the allowed one.
            let port = URL(string: base)!.port!
            #expect(
                try await fetcher(stubOnly).fetch(URL(string: "http://mixed.test:\(port)/cat.png")!).mimeType
                    == "image/png")
        }
    }

    @Test func failuresAreTyped() async throws {
        try await StubImageServer.withServer { base in
            let fetcher = fetcher(stubOnly)
            #expect(await failure(fetcher, "\(base)/missing") == .badStatus(404))
            #expect(await failure(fetcher, "\(base)/page") == .notAnImage)
            #expect(await failure(fetcher, "\(base)/drawing.svg") == .notAnImage)
            #expect(await failure(fetcher, "\(base)/truncated.png") == .notAnImage)
            #expect(await failure(fetcher, "\(base)/loop") == .tooManyRedirects(5))
            #expect(await failure(fetcher, "\(base)/huge") == .tooLarge(20 * 1024 * 1024))
            #expect(await failure(fetcher, "\(base)/to-ftp") == .invalidURL("ftp://example.com/cat.png"))
            let slow = await failure(self.fetcher(stubOnly, totalTimeout: .seconds(1)), "\(base)/slow")
            #expect(slow == .timedOut, "got \(String(describing: slow))")
        }
    }

    @Test func privateAddressesAreRefusedBeforeConnecting() async throws {
        try await StubImageServer.withServer { base in
            let port = URL(string: base)!.port!
            // The default policy refuses the stub itself (loopback).
            guard case .refused(let reason)? = await failure(fetcher(AddressPolicy()), "\(base)/cat.png") else {
                Issue.record("loopback was not refused")
                return
            }
            #expect(reason.contains("127.0.0.1"))
            // A redirect to a private address is refused at that hop, never connected to.
            guard case .refused? = await failure(fetcher(stubOnly), "\(base)/to-private") else {
                Issue.record("a redirect to 10.0.0.1 was not refused")
                return
            }
            guard case .refused? = await failure(fetcher(stubOnly), "http://private.test:\(port)/cat.png") else {
                Issue.record("a name resolving to 10.0.0.1 was not refused")
                return
            }
            guard case .refused? = await failure(fetcher(AddressPolicy()), "http://mapped.test:\(port)/cat.png") else {
                Issue.record("an IPv4-mapped loopback address was not refused")
                return
            }
            #expect(
                await failure(fetcher(stubOnly), "http://user:secret@127.0.0.1:\(port)/cat.png")
                    == .invalidURL("an address with a user name or password"))
            #expect(await failure(fetcher(stubOnly), "file:///etc/passwd") == .invalidURL("file:///etc/passwd"))
        }
    }
}
