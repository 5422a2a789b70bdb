import EmojiArtServer
import Foundation
import HTTPTypes
import Hummingbird
import Testing

@Suite("Other sites can't reach the server")
struct SiteGuardTests {
    enum Verdict: Equatable {
        case served, foreignHost, crossSite
    }

    struct Case: CustomTestStringConvertible, Sendable {
        var method: HTTPRequest.Method
        var host: String?
        var origin: String? = nil
        var fetchSite: String? = nil
        var isUpgrade = false
        var verdict: Verdict

        var testDescription: String {
            "\(method) Host=\(host ?? "-") Origin=\(origin ?? "-") Sec-Fetch-Site=\(fetchSite ?? "-")"
                + (isUpgrade ? " (WebSocket)" : "") + " → \(verdict)"
        }
    }

    static let localCases: [Case] = [
        // The server's own names, with or without a port, in any case.
        Case(method: .get, host: "127.0.0.1:8080", verdict: .served),
        Case(method: .get, host: "localhost:8080", verdict: .served),
        Case(method: .get, host: "LOCALHOST", verdict: .served),
        Case(method: .get, host: "[::1]:8080", verdict: .served),
        Case(method: .get, host: "localhost.:8080", verdict: .served),
        Case(method: .get, host: nil, verdict: .served),
        // DNS rebinding: another name pointing at 127.0.0.1; malformed names.
        Case(method: .get, host: "evil.example:8080", verdict: .foreignHost),
        Case(method: .get, host: "127.0.0.1.evil.example", verdict: .foreignHost),
        Case(method: .get, host: "localhost:8080@evil.example", verdict: .foreignHost),
        Case(method: .get, host: "[::1", verdict: .foreignHost),
        Case(method: .get, host: "[::2]:8080", verdict: .foreignHost),
        Case(method: .get, host: "", verdict: .foreignHost),
        Case(method: .get, host: "0.0.0.0:8080", verdict: .foreignHost),
        Case(method: .post, host: "evil.example", origin: "http://evil.example", verdict: .foreignHost),
        // Changes from the server's own pages, and from clients without an Origin (curl, the CLI).
        Case(method: .post, host: "127.0.0.1:8080", origin: "http://127.0.0.1:8080", verdict: .served),
        Case(method: .delete, host: "localhost:8080", origin: "http://localhost:8080", verdict: .served),
        Case(method: .post, host: "127.0.0.1:8080", verdict: .served),
        Case(method: .post, host: "127.0.0.1:8080", fetchSite: "same-origin", verdict: .served),
        // Changes from other sites' pages.
        Case(method: .post, host: "127.0.0.1:8080", origin: "http://evil.example", verdict: .crossSite),
        Case(method: .delete, host: "127.0.0.1:8080", origin: "http://evil.example", verdict: .crossSite),
        Case(method: .patch, host: "127.0.0.1:8080", origin: "null", verdict: .crossSite),
        Case(method: .put, host: "127.0.0.1:8080", origin: "http://localhost:8080", verdict: .crossSite),
        Case(method: .post, host: "127.0.0.1:8080", origin: "http://127.0.0.1:3000", verdict: .crossSite),
        Case(method: .post, host: "127.0.0.1:8080", origin: "http://127.0.0.1", verdict: .crossSite),
        Case(method: .post, host: "127.0.0.1:8080", fetchSite: "cross-site", verdict: .crossSite),
        Case(
            method: .post, host: "127.0.0.1:8080", origin: "http://127.0.0.1:8080", fetchSite: "cross-site",
            verdict: .crossSite),
        // Reading is open to any page (the browser keeps the answer from it: no CORS headers).
        Case(method: .get, host: "127.0.0.1:8080", origin: "http://evil.example", verdict: .served),
        Case(method: .get, host: "127.0.0.1:8080", fetchSite: "cross-site", verdict: .served),
        // WebSockets are refused like changes.
        Case(method: .get, host: "127.0.0.1:8080", origin: "http://evil.example", isUpgrade: true, verdict: .crossSite),
        Case(method: .get, host: "127.0.0.1:8080", fetchSite: "cross-site", isUpgrade: true, verdict: .crossSite),
        Case(
            method: .get, host: "127.0.0.1:8080", origin: "http://127.0.0.1:8080", isUpgrade: true, verdict: .served),
        Case(method: .get, host: "127.0.0.1:8080", isUpgrade: true, verdict: .served),
        // swift-websocket's client sends its own URL's scheme and host as the origin.
        Case(method: .get, host: "127.0.0.1:8080", origin: "ws://127.0.0.1", isUpgrade: true, verdict: .served),
        Case(method: .get, host: "127.0.0.1:8080", origin: "ws://evil.example", isUpgrade: true, verdict: .crossSite),
    ]

    @Test(arguments: localCases)
    func localMode(_ example: Case) {
        #expect(verdict(SiteGuard(), example) == example.verdict)
    }

    static let publicCases: [Case] = [
        Case(method: .get, host: "emojiart.example.com", verdict: .served),
        Case(method: .get, host: "EmojiArt.Example.com:443", verdict: .served),
        Case(method: .get, host: "127.0.0.1:8080", verdict: .served),
        Case(method: .get, host: "example.com", verdict: .foreignHost),
        // Behind a proxy that passes the host without its port, the browser's origin is the public one.
        Case(method: .post, host: "emojiart.example.com", origin: "https://emojiart.example.com", verdict: .served),
        Case(method: .post, host: "127.0.0.1:8081", origin: "https://emojiart.example.com", verdict: .served),
        Case(method: .post, host: "emojiart.example.com", origin: "https://evil.example", verdict: .crossSite),
        Case(
            method: .post, host: "emojiart.example.com", origin: "https://emojiart.example.com:8443",
            verdict: .crossSite),
    ]

    @Test(arguments: publicCases)
    func withAPublicURL(_ example: Case) {
        let siteGuard = SiteGuard(publicURL: URL(string: "https://EmojiArt.example.com/")!)
        #expect(verdict(siteGuard, example) == example.verdict)
    }

    @Test func aPublicURLWithAPortOrAnIPv6Address() {
        let ported = SiteGuard(publicURL: URL(string: "http://art.example:8443")!)
        #expect(ported.publicOrigin == "http://art.example:8443")
        #expect(ported.ownNames.contains("art.example"))
        let v6 = SiteGuard(publicURL: URL(string: "http://[2001:db8::1]:8080/")!)
        #expect(v6.ownNames.contains("[2001:db8::1]"))
        #expect(
            v6.refusal(method: .get, host: "[2001:db8::1]:8080", origin: nil, fetchSite: nil, isUpgrade: false) == nil)
    }

    private func verdict(_ siteGuard: SiteGuard, _ example: Case) -> Verdict {
        switch siteGuard.refusal(
            method: example.method, host: example.host, origin: example.origin, fetchSite: example.fetchSite,
            isUpgrade: example.isUpgrade)
        {
        case nil: .served
        case .foreignHost: .foreignHost
        case .crossSite: .crossSite
        }
    }

    // MARK: - Through the router

    // The router test client always sends `Host: localhost`; a request with one foreign Host is
    // tried against the real server in Tests/System/test_site_guard.py. Here a second Host,
    // which no browser sends, must be refused just the same.
    @Test func aSecondForeignHostIs421OnPagesFilesAndTheAPI() async throws {
        try await withAPI { api in
            let evil: HTTPFields = [hostField: "evil.example:8080"]
            for path in ["/", "/index.html", "/js/api.js", "/documents/\(UUID())", "/play", "/api/documents"] {
                let reply = try await api.request(.get, path, headers: evil)
                #expect(reply.status == .misdirectedRequest, "\(path)")
                #expect(reply.errorCode == "unknown_host", "\(path)")
                #expect(reply.errorMessage?.contains("evil.example") == true)
                #expect(reply.headers[.contentSecurityPolicy] != nil)
            }
            let created = try await api.request(.post, "/api/documents", json: ["title": "x"], headers: evil)
            #expect(created.status == .misdirectedRequest)
            #expect(try await documentCount(api) == 0)
            #expect(try await api.request(.get, "/").status == .ok)
        }
    }

    @Test func changesFromAnotherSiteAre403AndChangeNothing() async throws {
        try await withAPI { api in
            let id = try await api.createDocument(title: "Mine")
            let own: HTTPFields = [.origin: "http://localhost"]
            let evil: HTTPFields = [.origin: "http://evil.example"]
            let crossSite: HTTPFields = [HTTPField.Name("Sec-Fetch-Site")!: "cross-site"]
            for headers in [evil, crossSite] {
                let attempts: [(HTTPRequest.Method, String, [UInt8]?)] = [
                    (.post, "/api/documents", Array(#"{"title":"planted"}"#.utf8)),
                    (.post, "/api/documents/import", Array(#"{"emojis":[],"uniqueEmojiId":0}"#.utf8)),
                    (.patch, "/api/documents/\(id)", Array(#"{"title":"renamed"}"#.utf8)),
                    (.post, "/api/documents/\(id)/edits", Array(#"{"baseVersion":0,"edits":[]}"#.utf8)),
                    (.post, "/api/documents/\(id)/duplicate", nil),
                    (.post, "/api/documents/\(id)/undo", nil),
                    (.delete, "/api/documents/\(id)", nil),
                    (.post, "/api/palettes", Array(#"{"name":"planted"}"#.utf8)),
                    (.post, "/api/nowhere", nil),
                ]
                for (method, path, body) in attempts {
                    var sent = headers
                    sent[.contentType] = "text/plain"
                    let reply = try await api.request(method, path, bytes: body, headers: sent)
                    #expect(reply.status == .forbidden, "\(method) \(path): \(reply.text)")
                    #expect(reply.errorCode == "cross_site")
                }
            }
            #expect(try await documentCount(api) == 1)
            let document = try await api.request(.get, "/api/documents/\(id)", headers: evil)
            #expect(document.json["title"] as? String == "Mine" && document.json["version"] as? Int == 0)
            let palettes = try await api.request(.get, "/api/palettes")
            #expect((palettes.json["palettes"] as? [Any])?.count == 9)
            // The editor's own page may.
            let renamed = try await api.request(.patch, "/api/documents/\(id)", json: ["title": "Ours"], headers: own)
            #expect(renamed.status == .ok)
        }
    }

    @Test func jsonEndpointsRefuseOtherBodiesWith415() async throws {
        try await withAPI { api in
            let id = try await api.createDocument(title: "Mine")
            let body = Array(#"{"title":"renamed"}"#.utf8)
            for contentType in ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"] {
                for (method, path) in [
                    (HTTPRequest.Method.patch, "/api/documents/\(id)"), (.post, "/api/documents"),
                    (.post, "/api/documents/\(id)/edits"), (.post, "/api/palettes"),
                    (.post, "/api/documents/\(id)/duplicate"),
                ] {
                    let reply = try await api.request(method, path, bytes: body, headers: [.contentType: contentType])
                    #expect(reply.status == .unsupportedMediaType, "\(method) \(path) as \(contentType)")
                    #expect(reply.errorCode == "unsupported_media_type")
                }
            }
            let untyped = try await api.request(.patch, "/api/documents/\(id)", bytes: body)
            #expect(untyped.status == .unsupportedMediaType)
            #expect(try await documentCount(api) == 1)
            let document = try await api.request(.get, "/api/documents/\(id)")
            #expect(document.json["title"] as? String == "Mine")
            let typed = try await api.request(
                .patch, "/api/documents/\(id)", bytes: body,
                headers: [.contentType: "Application/JSON; charset=utf-8"])
            #expect(typed.status == .ok)
            // Bodiless requests need no type.
            #expect(try await api.request(.post, "/api/documents", bytes: nil).status == .created)
        }
    }

    @Test func onlyLoopbackAddressesCountAsLocal() throws {
        for host in ["127.0.0.1", "127.1.2.3", "localhost", "LocalHost", "::1", "[::1]", "0:0:0:0:0:0:0:1"] {
            #expect(ServerConfiguration.isLoopback(host), "\(host)")
        }
        for host in ["0.0.0.0", "::", "192.168.1.2", "10.0.0.1", "example.com", "128.0.0.1", "::2", ""] {
            #expect(!ServerConfiguration.isLoopback(host), "\(host)")
        }
        var configuration = ServerConfiguration()
        configuration.host = "0.0.0.0"
        #expect(throws: ConfigurationError.self) { try configuration.validateAccess() }
        configuration.host = "127.0.0.1"
        try configuration.validateAccess()
        configuration.publicURL = URL(string: "ftp://example.com")
        #expect(throws: ConfigurationError.self) { try configuration.validateAccess() }
    }

    private func documentCount(_ api: APIClient) async throws -> Int {
        (try await api.request(.get, "/api/documents").json["documents"] as? [Any])?.count ?? -1
    }
}

/// `Host`, which HTTPTypes spells as `:authority` on requests; the router test client passes it as a field.
private let hostField = HTTPField.Name("Host")!
