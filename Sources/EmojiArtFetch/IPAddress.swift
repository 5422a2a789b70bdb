#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// An IPv4 or IPv6 address, as the fetcher checks it before connecting.
public enum IPAddress: Hashable, Sendable, CustomStringConvertible {
    case v4(UInt32)
    case v6(UInt64, UInt64)

    /// Parses the standard textual forms only (`inet_pton`): dotted-quad IPv4 with no octal,
    /// hex or shortened forms, and RFC 4291 IPv6 (with an optional `[…]` and no zone).
    public init?(_ text: String) {
        var address = text
        if address.hasPrefix("["), address.hasSuffix("]") { address = String(address.dropFirst().dropLast()) }
        var v4 = in_addr()
        if inet_pton(AF_INET, address, &v4) == 1 {
            self = .v4(UInt32(bigEndian: v4.s_addr))
            return
        }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, address, &v6) == 1 else { return nil }
        let bytes = withUnsafeBytes(of: &v6) { Array($0) }
        let high = bytes[0..<8].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        let low = bytes[8..<16].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        self = .v6(high, low)
    }

    public var description: String {
        switch self {
        case .v4(let value):
            return [24, 16, 8, 0].map { String((value >> $0) & 0xFF) }.joined(separator: ".")
        case .v6(let high, let low):
            let groups =
                (0..<4).map { String((high >> (48 - 16 * $0)) & 0xFFFF, radix: 16) }
                + (0..<4).map { String((low >> (48 - 16 * $0)) & 0xFFFF, radix: 16) }
            return groups.joined(separator: ":")
        }
    }

    /// The IPv4 address an IPv6 address stands for: IPv4-mapped (`::ffff:a.b.c.d`), NAT64
    /// (`64:ff9b::a.b.c.d`) or 6to4 (`2002:aabb:ccdd::`). The deprecated IPv4-compatible
    /// (`::a.b.c.d`) and IPv4-translated (`::ffff:0:a.b.c.d`) forms are refused as ranges.
    var embeddedIPv4: UInt32? {
        guard case .v6(let high, let low) = self else { return nil }
        if high == 0, low >> 32 == 0xFFFF { return UInt32(truncatingIfNeeded: low) }
        if high == 0x0064_FF9B_0000_0000, low >> 32 == 0 { return UInt32(truncatingIfNeeded: low) }
        if high >> 48 == 0x2002 { return UInt32(truncatingIfNeeded: high >> 16) }
        return nil
    }
}

/// A CIDR range such as `10.0.0.0/8` or `fc00::/7`.
public struct AddressRange: Hashable, Sendable, CustomStringConvertible {
    public let network: IPAddress
    public let prefixLength: Int

    /// Parses `address/length`; a bare address is a single-address range.
    public init?(_ text: String) {
        let parts = text.split(separator: "/", maxSplits: 1).map(String.init)
        guard let first = parts.first, let network = IPAddress(first) else { return nil }
        let maximum = if case .v4 = network { 32 } else { 128 }
        let length = parts.count == 2 ? Int(parts[1]) : maximum
        guard let length, (0...maximum).contains(length) else { return nil }
        self.network = network
        self.prefixLength = length
    }

    public func contains(_ address: IPAddress) -> Bool {
        switch (network, address) {
        case (.v4(let network), .v4(let address)):
            guard prefixLength > 0 else { return true }
            let mask = UInt32.max << (32 - prefixLength)
            return network & mask == address & mask
        case (.v6(let networkHigh, let networkLow), .v6(let high, let low)):
            if prefixLength <= 64 {
                let mask = prefixLength == 0 ? 0 : UInt64.max << (64 - prefixLength)
                return networkHigh & mask == high & mask
            }
            let mask = UInt64.max << (128 - prefixLength)
            return networkHigh == high && networkLow & mask == low & mask
        default:
            return false
        }
    }

    public var description: String { "\(network)/\(prefixLength)" }
}
