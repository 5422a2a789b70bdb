import Foundation
import HTTPTypes
import Hummingbird

/// Refuses, before any route runs, requests ``SiteGuard`` refuses: `421` for a foreign `Host`,
/// `403` for a change from another site. WebSocket upgrades are refused the same way by
/// ``UpgradeGate``, before the upgrade is negotiated.
struct SiteGuardMiddleware<Context: RequestContext>: RouterMiddleware {
    let siteGuard: SiteGuard

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        if let refusal = siteGuard.refusal(for: request.head) { throw APIError(refusal) }
        return try await next(request, context)
    }
}

extension SiteGuard {
    /// The verdict on a request head.
    func refusal(for head: HTTPRequest) -> Refusal? {
        // HTTP/1 gives the first Host as :authority and keeps any other as a field.
        let hosts = (head.authority.map { [$0] } ?? []) + head.headerFields[values: Self.host]
        return refusal(
            method: head.method, host: hosts.isEmpty ? nil : hosts.joined(separator: ", "),
            origin: head.headerFields[.origin], fetchSite: head.headerFields[Self.secFetchSite],
            isUpgrade: Self.asksForWebSocket(head.headerFields[values: .upgrade])
                || head.headerFields[Self.refusedUpgrade] != nil)
    }

    /// Whether `Upgrade` values name WebSocket: any comma-separated token of any of them, in any
    /// case, as SwiftNIO's upgrade handler reads them.
    static func asksForWebSocket(_ upgradeValues: [String]) -> Bool {
        upgradeValues.contains { value in
            value.split(separator: ",").contains { $0.trimmingCharacters(in: .whitespaces).lowercased() == "websocket" }
        }
    }

    static let host = HTTPField.Name("Host")!
    static let secFetchSite = HTTPField.Name("Sec-Fetch-Site")!
    static let refusedUpgrade = HTTPField.Name(UpgradeGate.refusedUpgradeHeader)!
}

extension APIError {
    init(_ refusal: SiteGuard.Refusal) {
        switch refusal {
        case .foreignHost(let message):
            self.init(status: .misdirectedRequest, code: "unknown_host", message: message)
        case .crossSite(let message):
            self.init(status: .forbidden, code: "cross_site", message: message)
        }
    }

    static let notJSON = APIError(
        status: .unsupportedMediaType, code: "unsupported_media_type",
        message: "This endpoint takes JSON: send the body with Content-Type: application/json.")
}

/// Whether a `Content-Type` says JSON: `application/json`, with parameters or not.
func isJSONContentType(_ value: String?) -> Bool {
    guard let value else { return false }
    let mediaType = value.split(separator: ";", maxSplits: 1).first ?? ""
    return mediaType.trimmingCharacters(in: .whitespaces).lowercased() == "application/json"
}
