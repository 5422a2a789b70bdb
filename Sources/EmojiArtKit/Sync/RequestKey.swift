/// The request id of a change asked for with a client's key (a REST `Idempotency-Key`):
/// `key <claim> <fingerprint>`. The claim says whose key it is, for which kind of change; the
/// fingerprint is of what was asked. The same request sent again has the same id, so it is
/// recognised and not applied again; another request under a claim a change already took is
/// refused (``LiveDocumentError``'s `keyReused` in the live layer), never taken for the first.
public enum RequestKey {
    /// How every keyed request id starts. A live window's ids may not (``LiveRequest``).
    public static let prefix = "key "

    /// The request id for `claim` (no spaces at its ends) and a fingerprint without spaces.
    public static func requestID(claim: String, fingerprint: String) -> String {
        prefix + claim + " " + fingerprint
    }

    /// What every request id under the same claim as `requestID` starts with (through the space
    /// before the fingerprint); nil for an id not made from a key.
    public static func claimPrefix(of requestID: String) -> Substring? {
        guard requestID.hasPrefix(prefix), let space = requestID.lastIndex(of: " "),
            requestID.distance(from: requestID.startIndex, to: space) >= prefix.count
        else { return nil }
        return requestID[...space]
    }
}
