import EmojiArtFetch
import Foundation
import HTTPTypes

/// Who is asking, by address: what sign-in throttling and the live message limits count.
enum ClientAddress {
    /// The client's address: the peer's; or, when the peer is a trusted proxy (loopback, and
    /// `$EMOJIART_TRUSTED_PROXIES`), the last address it added to `X-Forwarded-For` — the one
    /// it saw; earlier ones the client could forge. IPv6 addresses count by their /64, which
    /// one client usually holds whole.
    static func key(peer: String?, headers: HTTPFields, settings: AccessSettings) -> String {
        let peer = peer ?? "unknown"
        var client = peer
        if let address = IPAddress(peer), settings.trustedProxies.contains(where: { $0.contains(address) }),
            let forwarded = headers[HTTPField.Name("X-Forwarded-For")!]?.split(separator: ",").last
        {
            client = forwarded.trimmingCharacters(in: .whitespaces)
        }
        return throttleKey(client)
    }

    /// An address as the limits count it: IPv4 whole, IPv6 by its first 64 bits.
    static func throttleKey(_ address: String) -> String {
        guard let parsed = IPAddress(address), case .v6(let network, _) = parsed else { return address }
        return "v6:" + String(network, radix: 16) + "/64"
    }
}
