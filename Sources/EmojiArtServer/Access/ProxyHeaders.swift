import HTTPTypes

/// The headers by which a proxy tells the server who its client is. Proxies are configured
/// with any one of them (nginx's `X-Real-IP` alone, Cloudflare's `CF-Connecting-IP`, RFC 7239's
/// `Forwarded`…), so a request that carries any of them did not come straight here, whichever
/// one the server itself believes.
enum ProxyHeaders {
    /// Names (lower case) that only a proxy adds.
    static let names: Set<String> = [
        "forwarded", "via", "x-real-ip", "x-client-ip", "client-ip", "true-client-ip", "cf-connecting-ip",
        "fastly-client-ip", "x-cluster-client-ip", "x-original-forwarded-for", "x-proxyuser-ip", "x-remote-ip",
        "x-remote-addr", "x-originating-ip", "x-envoy-external-address", "x-appengine-user-ip",
    ]

    /// Whether a header named `name` says the request came through a proxy: one of ``names``,
    /// any `X-Forwarded-…`, and anything else naming a client or real IP.
    static func isProxyHeader(_ name: String) -> Bool {
        let name = name.lowercased()
        return names.contains(name) || name.hasPrefix("x-forwarded-") || name.hasSuffix("-client-ip")
            || name.hasSuffix("-real-ip") || name.hasSuffix("-connecting-ip")
    }

    /// Whether any header of `fields` is a proxy's.
    static func present(in fields: HTTPFields) -> Bool {
        fields.contains { isProxyHeader($0.name.canonicalName) }
    }
}
