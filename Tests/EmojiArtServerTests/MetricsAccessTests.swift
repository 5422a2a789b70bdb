import EmojiArtStore
import Foundation
import HTTPTypes
import Testing

@testable import EmojiArtServer

@Suite("Who reads /metrics, and what its names look like")
struct MetricsAccessTests {
    static let admin = User(id: UUID(), name: "root", isAdmin: true, createdAt: Date())
    static let person = User(id: UUID(), name: "pat", isAdmin: false, createdAt: Date())
    static let token = Requester.Credential.token(id: UUID(), hash: "h")
    static let session = Requester.Credential.session(hash: "h")

    @Test(arguments: [
        (true, false, Requester.anonymous, true),  // on this machine, straight here
        (true, false, .local, true),
        (true, true, .anonymous, false),  // through a proxy: everyone looks local
        (false, false, .anonymous, false),
        (false, false, .user(admin, token), true),  // an admin's token, from anywhere
        (true, true, .user(admin, token), true),
        (false, false, .user(admin, session), false),  // a browser session is not a script
        (false, false, .user(person, token), false),
    ])
    func metricsAreForThisMachineOrAnAdminsToken(loopback: Bool, forwarded: Bool, requester: Requester, allowed: Bool) {
        #expect(MetricsAccess(peerIsLoopback: loopback, forwarded: forwarded, requester: requester).allows == allowed)
    }

    /// Issue #33: a proxy configured with `X-Real-IP` alone made every client look local.
    @Test(arguments: [
        "X-Real-IP", "X-Forwarded-For", "X-Forwarded-Host", "x-forwarded-proto", "Forwarded", "X-Client-IP",
        "True-Client-IP", "CF-Connecting-IP", "Fastly-Client-IP", "X-Cluster-Client-IP", "Via", "Client-IP",
        "X-Original-Forwarded-For", "X-Envoy-External-Address",
    ])
    func anyProxyHeaderMeansForwarded(header: String) {
        var fields = HTTPFields()
        fields[HTTPField.Name(header)!] = "127.0.0.1"
        #expect(ProxyHeaders.present(in: fields), "\(header)")
    }

    @Test func ordinaryHeadersAreNotAProxys() {
        let fields: HTTPFields = [
            HTTPField.Name("Host")!: "127.0.0.1:8080", .userAgent: "curl/8", .accept: "*/*", .cookie: "a=b",
            HTTPField.Name("X-Requested-With")!: "fetch",
        ]
        #expect(!ProxyHeaders.present(in: fields))
    }

    @Test func namesAreWhatPrometheusAllows() {
        #expect(ServerMetrics.prometheusName("hb.requests") == "hb_requests_total")
        #expect(ServerMetrics.prometheusName("http.server.request.duration") == "http_server_request_duration_seconds")
        #expect(ServerMetrics.prometheusName("http.route") == "http_route")
        #expect(ServerMetrics.prometheusName("9lives-left") == "_lives_left")
        #expect(ServerMetrics.prometheusName("emojiart_live_documents") == "emojiart_live_documents")
    }

    @Test func operatorsRoutesNeedNoSignIn() {
        for path in ["/api/health", "/api/ready", "/api/openapi.yaml", "/metrics"] {
            #expect(OpenRoutes.kind(of: path) == .open, "\(path)")
        }
        #expect(OpenRoutes.kind(of: "/api/documents") == .api)
        #expect(OpenRoutes.kind(of: "/metricsx") == .page)
    }
}
