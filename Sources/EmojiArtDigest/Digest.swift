import CLibCrypto
import Foundation

/// SHA-256 and SHA-1, from the system's libcrypto (Debian's OpenSSL 3, Apache-2.0) — the only
/// cryptography the server computes itself (passwords are bcrypt's, TLS is SwiftNIO's). Not
/// swift-crypto: on Linux it compiles a copy of BoringSSL of its own, a sixth of a first build,
/// for these two functions (docs/PERFORMANCE.md, "A newcomer's first build").
public enum Digest {
    /// The SHA-256 of `bytes` (32 bytes).
    public static func sha256(_ bytes: some DataProtocol) -> [UInt8] {
        digest(bytes, with: sha256Algorithm)
    }

    /// The SHA-1 of `bytes` (20 bytes), for protocols that name it (a WebSocket's accept value);
    /// never for anything that must resist collisions.
    public static func sha1(_ bytes: some DataProtocol) -> [UInt8] {
        digest(bytes, with: sha1Algorithm)
    }

    // Each implementation fetched once: OpenSSL 3 looks an algorithm up under a lock each time
    // it is named by `EVP_sha256()`, and a secret is hashed on every signed-in request. A fetched
    // algorithm is immutable and may be shared by threads.
    nonisolated(unsafe) private static let sha256Algorithm = fetch("SHA256")
    nonisolated(unsafe) private static let sha1Algorithm = fetch("SHA1")

    private static func fetch(_ name: String) -> OpaquePointer {
        guard let algorithm = EVP_MD_fetch(nil, name, nil) else {
            preconditionFailure("libcrypto has no \(name): is OpenSSL's default provider configured?")
        }
        return algorithm
    }

    /// `digest` in lower-case hex.
    public static func hex(_ digest: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text = [UInt8]()
        text.reserveCapacity(digest.count * 2)
        for byte in digest {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    private static func digest(_ bytes: some DataProtocol, with algorithm: OpaquePointer) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        // In place when the bytes are contiguous (Data, arrays), else from a copy.
        let succeeded =
            bytes.withContiguousStorageIfAvailable {
                EVP_Digest($0.baseAddress, $0.count, &output, &length, algorithm, nil)
            }
            ?? [UInt8](bytes).withUnsafeBytes { EVP_Digest($0.baseAddress, $0.count, &output, &length, algorithm, nil) }
        // Only a failure to allocate makes EVP_Digest fail for a fetched algorithm.
        precondition(succeeded == 1, "libcrypto could not compute a digest")
        return Array(output.prefix(Int(length)))
    }
}
