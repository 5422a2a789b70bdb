import EmojiArtDigest
import Foundation

/// The random secrets in cookies, tokens and links, and how they are kept.
public enum Secret {
    /// 256 random bits from the system's generator (getrandom), as base64url: 43 characters
    /// that are safe in a URL, a cookie and a header.
    public static func make() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    /// What the store keeps of a session cookie or an API token: its SHA-256, in hex. A copy of
    /// the database gives no one a way in.
    public static func hash(_ secret: String) -> String {
        Digest.hex(Digest.sha256(Array(secret.utf8)))
    }

    /// Whether text could be one of ours: base64url, of a sane length. Anything else is refused
    /// before it reaches the store.
    public static func isWellFormed(_ text: some StringProtocol) -> Bool {
        (20...128).contains(text.utf8.count)
            && text.utf8.allSatisfy { byte in
                (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                    || byte == 0x2D || byte == 0x5F
            }
    }
}
