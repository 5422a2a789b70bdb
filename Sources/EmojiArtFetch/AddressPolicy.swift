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

    /// Ranges no image fetch may reach unless allowed: every entry of IANA's IPv4 and IPv6
    /// Special-Purpose Address Registries (RFC 6890 and its updates, as of 2025) that is not
    /// globally reachable, multicast, and the deprecated IPv6 forms. Mapped (`::ffff:0:0/96`),
    /// NAT64 (`64:ff9b::/96`) and 6to4 (`2002::/16`) addresses are judged by the IPv4 address
    /// they carry; every other IPv6 address outside global unicast (`2000::/3`) is refused too,
    /// so a range the registry adds later in unallocated space is refused already.
    public static let specialRanges: [(range: AddressRange, name: String)] = [
        ("0.0.0.0/8", "\"this network\""), ("10.0.0.0/8", "private use"), ("100.64.0.0/10", "shared address space"),
        ("127.0.0.0/8", "loopback"), ("169.254.0.0/16", "link-local"), ("172.16.0.0/12", "private use"),
        ("192.0.0.0/24", "IETF protocol assignments"), ("192.0.2.0/24", "documentation (TEST-NET-1)"),
        ("192.31.196.0/24", "AS112-v4"), ("192.52.193.0/24", "AMT"),
        ("192.88.99.0/24", "deprecated 6to4 relay anycast"),
        ("192.168.0.0/16", "private use"), ("192.175.48.0/24", "direct delegation AS112 service"),
        ("198.18.0.0/15", "benchmarking"), ("198.51.100.0/24", "documentation (TEST-NET-2)"),
        ("203.0.113.0/24", "documentation (TEST-NET-3)"), ("224.0.0.0/4", "multicast"), ("240.0.0.0/4", "reserved"),
        ("255.255.255.255/32", "limited broadcast"),
        ("::/128", "unspecified"), ("::1/128", "loopback"), ("::/96", "IPv4-compatible (deprecated)"),
        ("::ffff:0:0:0/96", "IPv4-translated"), ("64:ff9b:1::/48", "local-use IPv4/IPv6 translation"),
        ("100::/64", "discard-only"), ("100:0:0:1::/64", "dummy IPv6 prefix"),
        ("2001::/23", "IETF protocol assignments (Teredo, ORCHID, benchmarking…)"), ("2001:db8::/32", "documentation"),
        ("2620:4f:8000::/48", "direct delegation AS112 service"), ("3fff::/20", "documentation"),
        ("5f00::/16", "segment routing SIDs"), ("fc00::/7", "unique local"), ("fe80::/10", "link-local"),
        ("fec0::/10", "site-local (deprecated)"), ("ff00::/8", "multicast"),
    ].compactMap { text, name in AddressRange(text).map { ($0, name) } }

    /// IPv6 global unicast: the only IPv6 space an image may come from, the forms that carry an
    /// IPv4 address aside.
    static let globalUnicast = AddressRange("2000::/3")!

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
        let subject = host == address.description ? host : "\(host) is \(address), which"
        if let special = AddressPolicy.specialRanges.first(where: { $0.range.contains(address) }) {
            return "\(subject) is in \(special.range) (\(special.name)), which is not a public address."
                .replacingOccurrences(of: ", which is in", with: ", in")
        }
        if case .v6 = address, !AddressPolicy.globalUnicast.contains(address) {
            return
                "\(subject) is outside \(AddressPolicy.globalUnicast) (global unicast), which is not a public address."
                .replacingOccurrences(of: ", which is outside", with: ", outside")
        }
        return nil
    }
}
