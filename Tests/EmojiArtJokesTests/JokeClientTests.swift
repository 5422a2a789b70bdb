import EmojiArtJokes
import Foundation
import Hummingbird
import HummingbirdTesting
import Synchronization
import Testing

/// The joke client against a local stub of the joke API, one route per behaviour.
@Suite("The jokes client")
struct JokeClientTests {
    static let joke = "Chuck Norris's code compiles before he writes it."

    /// Counts the stub's calls.
    final class Counter: Sendable {
        private let count = Mutex(0)
        func add() { count.withLock { $0 += 1 } }
        var value: Int { count.withLock { $0 } }
    }

    func withStub(_ body: @escaping @Sendable (String, Counter) async throws -> Void) async throws {
        let hits = Counter()
        let router = Router()
        router.get("ok") { _, _ in Response.json(#"{"value":"\#(Self.joke)","id":"a1"}"#) }
        router.get("fail") { _, _ in Response(status: .internalServerError) }
        router.get("limited") { _, _ in Response(status: .tooManyRequests) }
        router.get("bad") { _, _ in Response.json("this is not JSON") }
        router.get("empty") { _, _ in Response.json(#"{"value":"  "}"#) }
        router.get("slow") { _, _ in
            try await Task.sleep(for: .seconds(3))
            return Response.json(#"{"value":"late"}"#)
        }
        router.get("counted") { _, _ in
            hits.add()
            try await Task.sleep(for: .milliseconds(300))
            return Response.json(#"{"value":"shared"}"#)
        }
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        try await app.test(.live) { client in
            try await body("http://127.0.0.1:\(try #require(client.port))", hits)
        }
    }

    func client(_ base: String, _ path: String, timeout: Duration = .seconds(5)) -> JokeClient {
        JokeClient(endpoint: URL(string: base + path)!, timeout: timeout)
    }

    @Test func aJokeIsTheValueOfTheJSON() async throws {
        try await withStub { base, _ in
            let joke = try await client(base, "/ok").fetch()
            #expect(joke.text == Self.joke)
        }
    }

    @Test func everyFailureIsATypedErrorWithAReadableMessage() async throws {
        try await withStub { base, _ in
            await #expect(throws: JokeError.badStatus(500)) { try await client(base, "/fail").fetch() }
            await #expect(throws: JokeError.badStatus(429)) { try await client(base, "/limited").fetch() }
            do throws(JokeError) {
                _ = try await client(base, "/bad").fetch()
                Issue.record("bad JSON was accepted")
            } catch {
                #expect(error.code == "undecodable" && error.description.contains("isn't a joke"))
            }
            await #expect(throws: JokeError.undecodable("the joke is empty")) {
                try await client(base, "/empty").fetch()
            }
            let started = ContinuousClock.now
            await #expect(throws: JokeError.timeout(seconds: 0.5)) {
                try await client(base, "/slow", timeout: .milliseconds(500)).fetch()
            }
            // Given up before the stub's answer (at 3 s) came; how much sooner depends on the
            // machine's load (2.003 s once, with the whole suite on 2 cores).
            #expect(ContinuousClock.now - started < .milliseconds(2_900))
            #expect(JokeError.timeout(seconds: 0.5).description == "The joke service didn't answer within 0.5 s.")
        }
        // Nothing listening: a network error.
        let closed = JokeClient(endpoint: URL(string: "http://127.0.0.1:9/")!, timeout: .seconds(5))
        do throws(JokeError) {
            _ = try await closed.fetch()
            Issue.record("a closed port answered")
        } catch {
            #expect(error.code == "network")
            // One plain sentence, not the networking library's layers of brackets.
            #expect(error.description == "Couldn't reach the joke service: the connection was refused.")
        }
    }

    @Test func overlappingFetchesShareOneUpstreamCall() async throws {
        try await withStub { base, hits in
            let jokes = client(base, "/counted")
            let texts = try await withThrowingTaskGroup(of: String.self) { group in
                for _ in 0..<8 { group.addTask { try await jokes.fetch().text } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(texts == Array(repeating: "shared", count: 8))
            #expect(hits.value == 1)
            #expect(await jokes.upstreamCalls == 1)
            // Once it is over, the next fetch is a new call.
            _ = try await jokes.fetch()
            #expect(hits.value == 2)
        }
    }
}

extension Response {
    static func json(_ text: String) -> Response {
        Response(
            status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: text)))
    }
}
