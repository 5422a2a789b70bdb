import Foundation

/// Which addresses the server may fetch images from. By default only public unicast addresses:
/// loopback, private, link-local, CGNAT, multicast, unspecified, documentation and other
/// reserved ranges are refused, for IPv4 and IPv6, including IPv6 forms that carry an IPv4
/// address (mapped, compatible, NAT64, 6to4). The fetcher checks the address it actually
/// connects to, on every redirect hop.
///
/// `allowedHosts` and `allowedRanges` open exceptions — the tests use them to reach their own
/// stub server on 127.0.0.1 (`EMOJIART_FETCH_ALLOW=127.0.0.1/32,localhost`).
public struct AddressPolicy: Sendable {
    public var allowedHosts: Set<String>
    public var allowedRanges: [AddressRange]
    /// False refuses every address not explicitly allowed — and names not in ``allowedHosts``
    /// before any DNS lookup. Test runs use it so nothing ever leaves the machine
    /// (`EMOJIART_FETCH_PUBLIC=0`).
    public var allowsPublicAddresses = true

    public init(allowedHosts: Set<String> = [], allowedRanges: [AddressRange] = []) {
        self.allowedHosts = Set(allowedHosts.map { $0.lowercased() })
        self.allowedRanges = allowedRanges
    }

    /// Whether `host` is refused without being resolved.
    public func refusesWithoutLookup(host: String) -> Bool {
        !allowsPublicAddresses && IPAddress(host) == nil && !allowedHosts.contains(host.lowercased())
    }

    /// Parses a comma-separated list of host names and CIDR ranges, e.g. `127.0.0.1/32,localhost`.
    public init(allowing list: String) {
        var hosts: Set<String> = []
        var ranges: [AddressRange] = []
        for item in list.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) where !item.isEmpty {
            if let range = AddressRange(item) { ranges.append(range) } else { hosts.insert(item.lowercased()) }
        }
        self.init(allowedHosts: hosts, allowedRanges: ranges)
    }

    /// Ranges no image fetch may reach unless allowed (IANA special-purpose registries).
    public static let blockedRanges: [AddressRange] = [
        "0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8", "169.254.0.0/16", "172.16.0.0/12",
        "192.0.0.0/24", "192.0.2.0/24", "192.88.99.0/24", "192.168.0.0/16", "198.18.0.0/15",
        "198.51.100.0/24", "203.0.113.0/24", "224.0.0.0/4", "240.0.0.0/4",
        "::/128", "::1/128", "100::/64", "2001::/23", "2001:db8::/32", "fc00::/7", "fe80::/10", "fec0::/10",
        "ff00::/8",
    ].compactMap(AddressRange.init)

    /// Why `address` (reached as `host`) may not be fetched, or nil if it may.
    public func refusal(host: String, address: IPAddress) -> String? {
        if allowedHosts.contains(host.lowercased()) || allowedRanges.contains(where: { $0.contains(address) }) {
            return nil
        }
        if let embedded = address.embeddedIPv4 {
            return refusal(host: host, address: .v4(embedded)).map { "\($0) (inside the IPv6 address \(address))" }
        }
        guard allowsPublicAddresses else {
            return "\(host) is not on the list of allowed hosts (public addresses are turned off)."
        }
        if let range = AddressPolicy.blockedRanges.first(where: { $0.contains(address) }) {
            let name = host == address.description ? host : "\(host) is \(address), which"
            return "\(name) is in \(range), which is not a public address.".replacingOccurrences(
                of: ", which is in", with: ", in")
        }
        return nil
    }
}
