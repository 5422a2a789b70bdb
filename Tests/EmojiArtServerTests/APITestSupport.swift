import EmojiArtJokes
import EmojiArtLive
import EmojiArtServer
import EmojiArtStore
import EmojiArtStoreSQLite
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

let fixturesDirectory = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fixtures")

/// Runs `body` against the API's router on an in-memory store.
func withAPI(
    siteGuard: SiteGuard = SiteGuard(), access: AccessSettings = AccessSettings(), stores: Stores = .inMemory(),
    _ body: @Sendable (APIClient) async throws -> Void
) async throws {
    // The joke API is a closed port on loopback: router tests contact nothing outside.
    let jokes = JokeClient(endpoint: URL(string: "http://127.0.0.1:9/jokes")!, timeout: .seconds(2))
    let router = buildRouter(ServerComponents(stores: stores, jokes: jokes, settings: access, siteGuard: siteGuard))
    let app = Application(router: router)
    try await app.test(.router) { client in
        try await body(APIClient(client: client))
    }
}

/// Accounts mode, with bcrypt at its lowest cost so tests sign in quickly.
var testAccounts: AccessSettings {
    var settings = AccessSettings()
    settings.mode = .accounts
    settings.passwordCost = 4
    return settings
}

/// A thin JSON client over the test client.
struct APIClient: Sendable {
    let client: any TestClientProtocol

    struct Reply: @unchecked Sendable {
        var status: HTTPResponse.Status
        var headers: HTTPFields
        var bytes: [UInt8]

        var json: [String: Any] {
            (try? JSONSerialization.jsonObject(with: Data(bytes))) as? [String: Any] ?? [:]
        }
        var text: String { String(decoding: bytes, as: UTF8.self) }
        var errorCode: String? { (json["error"] as? [String: Any])?["code"] as? String }
        var errorMessage: String? { (json["error"] as? [String: Any])?["message"] as? String }
    }

    /// A request with a JSON body (sent as `application/json`), or none.
    func request(
        _ method: HTTPRequest.Method, _ uri: String, json: Any? = nil, headers: HTTPFields = [:]
    ) async throws -> Reply {
        guard let json else { return try await request(method, uri, bytes: nil, headers: headers) }
        var headers = headers
        if headers[.contentType] == nil { headers[.contentType] = "application/json" }
        let body = try JSONSerialization.data(withJSONObject: json)
        return try await request(method, uri, bytes: Array(body), headers: headers)
    }

    func request(
        _ method: HTTPRequest.Method, _ uri: String, bytes: [UInt8]?, headers: HTTPFields = [:]
    ) async throws -> Reply {
        try await client.execute(uri: uri, method: method, headers: headers, body: bytes.map { ByteBuffer(bytes: $0) })
        {
            response in
            Reply(status: response.status, headers: response.headers, bytes: Array(response.body.readableBytesView))
        }
    }

    /// Creates a document and returns its id.
    func createDocument(title: String = "Test") async throws -> String {
        let reply = try await request(.post, "/api/documents", json: ["title": title])
        return reply.json["id"] as? String ?? ""
    }

    func edit(_ id: String, base: Int, _ edits: [[String: Any]]) async throws -> Reply {
        try await request(.post, "/api/documents/\(id)/edits", json: ["baseVersion": base, "edits": edits])
    }
}

func addEmoji(_ text: String = "😀", x: Int = 0, y: Int = 0, size: Int = 40) -> [String: Any] {
    ["type": "addEmoji", "text": text, "position": ["x": x, "y": y], "size": size]
}

/// Waits until `condition` holds, checking every 5 ms; records an issue after `limit` (long: the
/// whole suite runs in parallel on two cores, and a busy pool can keep a task waiting seconds).
func eventually(
    within limit: Duration = .seconds(30), _ condition: @Sendable () async -> Bool,
    sourceLocation: SourceLocation = #_sourceLocation
) async throws {
    let deadline = ContinuousClock.now + limit
    while !(await condition()) {
        guard ContinuousClock.now < deadline else {
            Issue.record("not within \(limit)", sourceLocation: sourceLocation)
            return
        }
        try await Task.sleep(for: .milliseconds(5))
    }
}

extension HTTPField.Name {
    /// Spelt out here, as a client sends it (docs/API.md, "Editing").
    static let idempotencyKey = HTTPField.Name("Idempotency-Key")!
}
