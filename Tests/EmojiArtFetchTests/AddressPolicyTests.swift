import EmojiArtFetch
import Foundation
import Synchronization
import Testing

@Suite("The fetch address policy refuses non-public addresses")
struct AddressPolicyTests {
    static let refused: [String] = [
        "127.0.0.1", "127.255.255.254", "10.1.2.3", "172.16.0.1", "172.31.255.255", "192.168.1.1", "169.254.169.254",
        "100.64.0.1", "100.127.255.255", "0.0.0.0", "0.1.2.3", "224.0.0.1", "239.255.255.250", "240.0.0.1",
        "255.255.255.255", "192.0.2.1", "198.51.100.7", "203.0.113.9", "198.18.0.1", "192.0.0.8",
        "::1", "::", "fe80::1", "fc00::1", "fd12:3456::1", "ff02::1", "2001:db8::1", "fec0::1",
        "::ffff:127.0.0.1", "::ffff:10.0.0.1", "::ffff:7f00:1", "::127.0.0.1", "64:ff9b::a9fe:a9fe",
        "2002:c0a8:0101::1", "[::1]", "2001::1",
        // Issue #33: IPv4-translated loopback was let through; and the rest of IANA's registries.
        "::ffff:0:7f00:1", "::ffff:0:a00:1", "::ffff:0:808:808", "::8.8.8.8", "::2", "64:ff9b:1::1",
        "64:ff9b::7f00:1", "100::1", "100:0:0:1::1", "2001:2::1", "2001:10::1", "2001:20::1", "2001:30::1",
        "2620:4f:8000::1", "3fff::1", "3fff:fff::1", "5f00::1", "192.31.196.1", "192.52.193.1", "192.175.48.1",
        "192.0.0.170", "192.88.99.1", "4000::1", "8000::1", "e000::1", "1::1", "2002:7f00:1::",
    ]

    static let allowed: [String] = [
        "93.184.216.34", "8.8.8.8", "1.1.1.1", "172.32.0.1", "100.128.0.1", "192.169.0.1", "11.0.0.1",
        "2606:4700:4700::1111", "2a00:1450:4001:80b::200e", "::ffff:93.184.216.34", "2002:5db8:d822::1",
        "64:ff9b::808:808", "2620:4f:7fff::1", "3ffe::1", "2001:4860:4860::8888",
    ]

    /// Every range of the table is refused at its first and last address, by its name.
    @Test func everySpecialRangeIsRefusedByName() throws {
        for (range, name) in AddressPolicy.specialRanges {
            let reason = try #require(AddressPolicy().refusal(host: "example.com", address: range.network))
            // A range's first address may fall in an earlier, narrower entry (`::` before `::/96`).
            let first = try #require(AddressPolicy.specialRanges.first { $0.range.contains(range.network) })
            #expect(reason.contains(first.name), "\(range) \(name): \(reason)")
        }
    }

    @Test(arguments: refused)
    func refuses(text: String) throws {
        let address = try #require(IPAddress(text), "\(text) should parse")
        let reason = try #require(AddressPolicy().refusal(host: "example.com", address: address), "\(text)")
        #expect(reason.contains("not a public address"))
    }

    @Test(arguments: allowed)
    func allows(text: String) throws {
        let address = try #require(IPAddress(text), "\(text) should parse")
        #expect(AddressPolicy().refusal(host: "example.com", address: address) == nil, "\(text)")
    }

    @Test func ambiguousSpellingsAreNotAddresses() {
        for text in [
            "0x7f.0.0.1", "0177.0.0.1", "2130706433", "127.1", "1.2.3.4.5", "256.0.0.1", "fe80::1%eth0", "", "::g",
        ] {
            #expect(IPAddress(text) == nil, "\(text)")
        }
    }

    @Test func publicAddressesCanBeTurnedOff() async throws {
        var policy = AddressPolicy(allowing: "127.0.0.1/32,stub.test")
        policy.allowsPublicAddresses = false
        #expect(policy.refusal(host: "example.com", address: try #require(IPAddress("93.184.216.34"))) != nil)
        #expect(policy.refusal(host: "x", address: try #require(IPAddress("127.0.0.1"))) == nil)
        #expect(policy.refusesWithoutLookup(host: "example.com"))
        #expect(!policy.refusesWithoutLookup(host: "STUB.test"))
        #expect(!policy.refusesWithoutLookup(host: "127.0.0.1"))
        let lookups = LookupCounter()
        let fetcher = ImageFetcher(policy: policy) { _ in
            lookups.count()
            return []
        }
        do {
            _ = try await fetcher.fetch(URL(string: "https://example.com/cat.png")!)
            Issue.record("a public host was fetched")
        } catch {
            guard case .refused = error else {
                Issue.record("expected a refusal, got \(error)")
                return
            }
        }
        #expect(lookups.value == 0, "the name must not even be resolved")
    }

    @Test func configuredExceptionsAllowTheTestStub() throws {
        let policy = AddressPolicy(allowing: "127.0.0.1/32, stub.test ,fd00::/8")
        #expect(policy.refusal(host: "localhost", address: try #require(IPAddress("127.0.0.1"))) == nil)
        #expect(policy.refusal(host: "localhost", address: try #require(IPAddress("127.0.0.2"))) != nil)
        #expect(policy.refusal(host: "STUB.test", address: try #require(IPAddress("10.0.0.5"))) == nil)
        #expect(policy.refusal(host: "x", address: try #require(IPAddress("fd00::5"))) == nil)
        #expect(AddressRange("10.0.0.0/33") == nil)
        #expect(AddressRange("::/129") == nil)
        #expect(AddressRange("10.0.0.0/8")?.description == "10.0.0.0/8")
    }
}

final class LookupCounter: Sendable {
    private let calls = Mutex(0)
    func count() { calls.withLock { $0 += 1 } }
    var value: Int { calls.withLock { $0 } }
}
