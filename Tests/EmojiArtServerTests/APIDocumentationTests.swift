import Foundation
import Hummingbird
import Testing

/// Keeps docs/API.md true: every endpoint it documents exists.
@Suite("docs/API.md matches the server")
struct APIDocumentationTests {
    @Test func everyDocumentedEndpointExists() async throws {
        let apiDoc = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("docs/API.md")
        let text = try String(contentsOf: apiDoc, encoding: .utf8)
        let pattern = try NSRegularExpression(
            pattern: #"`(GET|POST|PATCH|PUT|DELETE)(?:\|(?:GET|POST|PATCH|PUT|DELETE))* (/[^`\s?\[]*)"#)
        let matches = pattern.matches(in: text, range: NSRange(text.startIndex..., in: text))
        var endpoints: [(String, String)] = []
        for match in matches {
            let method = String(text[Range(match.range(at: 1), in: text)!])
            let path = String(text[Range(match.range(at: 2), in: text)!])
            endpoints.append((method, path))
        }
        #expect(endpoints.count >= 18, "found \(endpoints.count) endpoints in docs/API.md")
        let documented = endpoints
        try await withAPI { api in
            let documentID = try await api.createDocument()
            let paletteID =
                try await api.request(.get, "/api/palettes").json["palettes"]
                .flatMap { ($0 as? [[String: Any]])?.last?["id"] as? String } ?? ""
            for (method, documentedPath) in documented {
                let id = documentedPath.contains("palettes") ? paletteID : documentID
                let path = documentedPath.replacingOccurrences(of: "{id}", with: id)
                let reply = try await api.request(HTTPRequest.Method(method)!, path, bytes: nil)
                #expect(
                    reply.errorMessage != "There is nothing at this address." && reply.status != .methodNotAllowed,
                    "\(method) \(documentedPath) is documented but not served (\(reply.status))")
            }
        }
    }
}
