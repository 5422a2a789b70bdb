import Foundation
import HTTPTypes

/// Decides, before anything else, whether a request comes from a place the server answers:
/// its `Host` must be one of the server's own names (so a DNS-rebinding page, whose requests
/// carry the attacker's name, is refused), and a request that changes something or opens a
/// WebSocket must not come from another site's page (`Origin`, `Sec-Fetch-Site`).
///
/// A pure value: the HTTP middleware and the WebSocket upgrade gate both ask it, and tests
/// drive it with plain strings. Jupyter's local server is the model.
public struct SiteGuard: Sendable, Equatable {
    /// Why a request is refused.
    public enum Refusal: Sendable, Equatable {
        /// `Host` names something other than this server: 421.
        case foreignHost(String)
        /// A change or a WebSocket from another site's page: 403.
        case crossSite(String)
    }

    /// The names that reach this server on its own machine.
    public static let loopbackNames: Set<String> = ["localhost", "127.0.0.1", "[::1]"]

    /// Host names (lower case, IPv6 in brackets) the server answers to.
    public private(set) var ownNames: Set<String>
    /// The origin of the public URL (`https://emojiart.example.com`), if one is set.
    public private(set) var publicOrigin: String?

    /// - Parameter publicURL: the address people reach the server by (`--public-url`); its host
    ///   joins the loopback names, and pages served from it may change things.
    public init(publicURL: URL? = nil) {
        ownNames = Self.loopbackNames
        if let publicURL, let authority = Self.authority(of: publicURL) {
            ownNames.insert(authority.host)
            publicOrigin = authority.origin
        }
    }

    /// The verdict on one request; nil means serve it.
    ///
    /// - Parameters:
    ///   - method: the request's method.
    ///   - host: its `Host` header (`:authority`), nil when absent (HTTP/1.0 clients; a browser
    ///     always sends one). Several are joined with ", " and so refused.
    ///   - origin: its `Origin` header, if any; several are joined with ", " and so refused.
    ///   - fetchSite: its `Sec-Fetch-Site` header, if any.
    ///   - isUpgrade: whether it asks for a WebSocket.
    public func refusal(
        method: HTTPRequest.Method, host: String?, origin: String?, fetchSite: String?, isUpgrade: Bool
    ) -> Refusal? {
        if let host {
            guard let name = Self.hostName(host), ownNames.contains(name) else {
                return .foreignHost("This server doesn't answer to the name \(Self.quoted(host)).")
            }
        }
        guard isUpgrade || !Self.safeMethods.contains(method) else { return nil }
        if fetchSite?.lowercased() == "cross-site" {
            return .crossSite("Requests from other web sites can't change anything here.")
        }
        guard let origin = origin?.lowercased() else { return nil }
        if isOwnOrigin(origin, host: host) { return nil }
        // Browsers never send a ws: origin; some WebSocket client libraries (swift-websocket's)
        // send `ws://<host>` on their own, which is as good as no Origin at all.
        if let host, let name = Self.hostName(host), origin == "ws://\(name)" || origin == "wss://\(name)" {
            return nil
        }
        return .crossSite("Requests from \(Self.quoted(origin)) can't change anything here.")
    }

    /// Whether a navigation was started by another site's page: `Sec-Fetch-Site` says so (any
    /// value but `same-origin` and `none`, which is the user's own address bar or bookmark), or,
    /// from a browser that doesn't send it, a foreign `Origin` or `Referer`. Opening a share
    /// link asks before it grants anything when this is true.
    public func isFromAnotherSite(host: String?, origin: String?, referer: String?, fetchSite: String?) -> Bool {
        if let fetchSite = fetchSite?.lowercased() {
            return fetchSite != "same-origin" && fetchSite != "none"
        }
        if let origin, !isOwnOrigin(origin, host: host) { return true }
        if let referer, !referer.isEmpty {
            guard let url = URL(string: referer), let authority = Self.authority(of: url) else { return true }
            // The origin as browsers write it (default port left out), and as the Host header may.
            let withPort = (url.scheme?.lowercased() ?? "") + "://" + authority.host + (url.port.map { ":\($0)" } ?? "")
            return !isOwnOrigin(authority.origin, host: host) && !isOwnOrigin(withPort, host: host)
        }
        return false
    }

    /// Whether `origin` is this server's: the public URL's, or the scheme and `Host` of the
    /// request itself.
    func isOwnOrigin(_ origin: String, host: String?) -> Bool {
        let origin = origin.lowercased()
        if origin == publicOrigin { return true }
        guard let host = host?.lowercased() else { return false }
        return origin == "http://\(host)" || origin == "https://\(host)"
    }

    /// Methods that change nothing; only they may come from anywhere.
    static let safeMethods: Set<HTTPRequest.Method> = [.get, .head, .options]

    /// The host part of a `Host` header, lower case, without its port; nil when malformed.
    static func hostName(_ host: String) -> String? {
        let host = host.lowercased()
        if host.hasPrefix("[") {
            guard let close = host.firstIndex(of: "]") else { return nil }
            let rest = host[host.index(after: close)...]
            guard rest.isEmpty || (rest.hasPrefix(":") && isPort(rest.dropFirst())) else { return nil }
            return String(host[...close])
        }
        let parts = host.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        guard let name = parts.first, !name.isEmpty else { return nil }
        if parts.count == 2, !isPort(parts[1]) { return nil }
        return String(name.hasSuffix(".") ? name.dropLast() : name)
    }

    private static func isPort(_ text: Substring) -> Bool {
        !text.isEmpty && text.count <= 5 && text.allSatisfy(\.isASCII) && text.allSatisfy(\.isNumber)
    }

    /// The host name and the origin (`scheme://host[:port]`, default port left out) of a URL.
    static func authority(of url: URL) -> (host: String, origin: String)? {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
            var host = url.host?.lowercased(), !host.isEmpty
        else { return nil }
        if host.contains(":"), !host.hasPrefix("[") { host = "[\(host)]" }
        let defaultPort = scheme == "https" ? 443 : 80
        let port = url.port.flatMap { $0 == defaultPort ? nil : $0 }
        return (host, "\(scheme)://\(host)" + (port.map { ":\($0)" } ?? ""))
    }

    /// A header value as it can be shown in a message: short and printable.
    private static func quoted(_ text: String) -> String {
        let printable = text.unicodeScalars.filter { $0.isASCII && $0.value >= 0x20 && $0 != "\"" }
        let shown = String(String.UnicodeScalarView(printable.prefix(100)))
        return "\"\(shown)\""
    }
}
