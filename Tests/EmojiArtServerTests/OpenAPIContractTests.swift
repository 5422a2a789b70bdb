import EmojiArtJokes
import EmojiArtServer
import EmojiArtStore
import EmojiArtStoreSQLite
import Foundation
import Hummingbird
import Testing

@testable import EmojiArtServer

/// Keeps the OpenAPI contract (Sources/EmojiArtWeb/Public/openapi.yaml, served at
/// `/api/openapi.yaml`) and the server's routes the same: a route the spec lacks, or an
/// operation the server doesn't have, fails here.
@Suite("The OpenAPI contract lists exactly the server's routes")
struct OpenAPIContractTests {
    static let specURL = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources/EmojiArtWeb/Public/openapi.yaml")

    static func components() -> ServerComponents {
        ServerComponents(
            stores: .inMemory(), jokes: JokeClient(endpoint: URL(string: "http://127.0.0.1:9/jokes")!),
            settings: AccessSettings(), siteGuard: SiteGuard())
    }

    /// `/api/documents/:id` and `/api/documents/{id}` alike as `/api/documents/{id}`.
    static func normalized(_ path: String) -> String {
        path.split(separator: "/", omittingEmptySubsequences: false).map { part in
            part.hasPrefix(":") ? "{\(part.dropFirst())}" : String(part)
        }.joined(separator: "/")
    }

    /// The spec's operations as `METHOD /path`, and its `x-webSockets` paths, read from the YAML
    /// by indentation (the file keeps to two spaces a level).
    static func specOperations(_ text: String) -> (operations: Set<String>, webSockets: Set<String>) {
        var operations: Set<String> = []
        var webSockets: Set<String> = []
        var section = ""
        var path: String?
        let methods: Set<String> = ["get", "put", "post", "delete", "patch", "head", "options"]
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let indent = line.prefix { $0 == " " }.count
            let content = line.trimmingCharacters(in: .whitespaces)
            if content.isEmpty || content.hasPrefix("#") { continue }
            if indent == 0 {
                section = String(content.split(separator: ":").first ?? "")
                continue
            }
            switch section {
            case "paths":
                if indent == 2, content.hasPrefix("/"), content.hasSuffix(":") {
                    path = String(content.dropLast()).trimmingCharacters(in: CharacterSet(charactersIn: "'\""))
                } else if indent == 4, let path, let key = content.split(separator: ":").first,
                    methods.contains(String(key))
                {
                    operations.insert("\(key.uppercased()) \(path)")
                }
            case "x-webSockets":
                if let range = content.range(of: "path:") {
                    webSockets.insert(
                        content[range.upperBound...].trimmingCharacters(in: CharacterSet(charactersIn: " '\"")))
                }
            default: break
            }
        }
        return (operations, webSockets)
    }

    @Test func everyRouteIsInTheSpecAndEveryOperationIsARoute() throws {
        let text = try String(contentsOf: Self.specURL, encoding: .utf8)
        #expect(text.hasPrefix("openapi: 3.1"), "an OpenAPI 3.1 document")
        let spec = Self.specOperations(text)
        let components = Self.components()
        let routes = Set(
            buildRouter(components).routes.map { "\($0.method.rawValue) \(Self.normalized($0.path.description))" })
        #expect(routes.count >= 40, "found \(routes.count) routes")
        // `/` is index.html, served by the file middleware rather than a route.
        let files: Set = ["GET /"]
        let missing = routes.subtracting(spec.operations).sorted()
        let extra = spec.operations.subtracting(routes).subtracting(files).sorted()
        #expect(missing.isEmpty, "routes the spec lacks: \(missing)")
        #expect(extra.isEmpty, "operations the server doesn't have: \(extra)")
        let live = Set(buildLiveRouter(components).routes.map { Self.normalized($0.path.description) })
        #expect(live == spec.webSockets, "WebSocket routes: server \(live.sorted()), spec \(spec.webSockets.sorted())")
    }

    @Test func theSpecIsServed() async throws {
        try await withAPI { api in
            let reply = try await api.request(.get, "/api/openapi.yaml")
            #expect(reply.status == .ok)
            #expect(reply.headers[.contentType]?.hasPrefix("application/yaml") == true)
            #expect(reply.bytes == Array(try Data(contentsOf: Self.specURL)))
            let index = try await api.request(.get, "/")
            #expect(index.status == .ok && index.headers[.contentType]?.hasPrefix("text/html") == true)
        }
    }
}
