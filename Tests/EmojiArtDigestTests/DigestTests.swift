import EmojiArtDigest
import Foundation
import Testing

/// The digests against the standards' own examples (FIPS 180-4's, and RFC 6455's accept value).
struct DigestTests {
    @Test(arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        (
            "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
        ),
    ])
    func sha256(input: String, expected: String) {
        #expect(Digest.hex(Digest.sha256(Array(input.utf8))) == expected)
        #expect(Digest.hex(Digest.sha256(Data(input.utf8))) == expected)
    }

    @Test func sha256OfAMillionAs() {
        let input = Data(repeating: UInt8(ascii: "a"), count: 1_000_000)
        #expect(
            Digest.hex(Digest.sha256(input)) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    /// A slice of Data (not starting at zero) and a collection that isn't contiguous hash as their bytes.
    @Test func sha256OfSlicesAndNonContiguousBytes() {
        let data = Data("xxabc".utf8).dropFirst(2)
        let expected = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        #expect(Digest.hex(Digest.sha256(data)) == expected)
        var joined = DispatchData.empty
        for part in ["a", "bc"] {
            [UInt8](part.utf8).withUnsafeBytes { joined.append(DispatchData(bytes: $0)) }
        }
        #expect(Digest.hex(Digest.sha256(joined)) == expected)
    }

    @Test(arguments: [
        ("", "da39a3ee5e6b4b0d3255bfef95601890afd80709"),
        ("abc", "a9993e364706816aba3e25717850c26c9cd0d89d"),
    ])
    func sha1(input: String, expected: String) {
        #expect(Digest.hex(Digest.sha1(Array(input.utf8))) == expected)
    }

    /// RFC 6455 §1.3: the key "dGhlIHNhbXBsZSBub25jZQ==" is accepted as "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=".
    @Test func aWebSocketsAcceptValue() {
        let digest = Digest.sha1(Array("dGhlIHNhbXBsZSBub25jZQ==258EAFA5-E914-47DA-95CA-C5AB0DC85B11".utf8))
        #expect(Data(digest).base64EncodedString() == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
    }
}
