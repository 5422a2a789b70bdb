/// The request id of a change asked for with a client's key (a REST `Idempotency-Key`):
/// `key <fingerprint> <claim>`. The fingerprint — 32 hex digits — is of what was asked; the claim
/// says whose key it is, for which kind of change. The same request sent again has the same id,
/// so it is recognised and not applied again; another request under a claim a change already
/// took is refused (the live layer's `LiveDocumentError.keyReused`), never taken for the first.
/// The claim starts at a fixed place, so a store can index it (shared migration 9).
public enum RequestKey {
    /// How every keyed request id starts. A live window's ids may not (``LiveRequest``).
    public static let prefix = "key "
    /// How many hex digits a fingerprint has.
    public static let fingerprintLength = 32
    /// Where the claim starts, counted from 1 as SQL's `substr` counts.
    public static let claimOffset = prefix.count + fingerprintLength + 2

    /// The request id for `claim` and a fingerprint of ``fingerprintLength`` hex digits.
    public static func requestID(claim: String, fingerprint: String) -> String {
        precondition(
            fingerprint.utf8.count == fingerprintLength && fingerprint.utf8.allSatisfy(\.isHexDigit),
            "a fingerprint is \(fingerprintLength) hex digits")
        return prefix + fingerprint + " " + claim
    }

    /// The claim of a keyed request id; nil for an id not made from a key.
    public static func claim(of requestID: String) -> Substring? {
        let utf8 = requestID.utf8
        guard utf8.count >= claimOffset, requestID.hasPrefix(prefix),
            utf8[utf8.index(utf8.startIndex, offsetBy: claimOffset - 2)] == UInt8(ascii: " ")
        else { return nil }
        return requestID[utf8.index(utf8.startIndex, offsetBy: claimOffset - 1)...]
    }
}

extension UInt8 {
    fileprivate var isHexDigit: Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(self)
    }
}
