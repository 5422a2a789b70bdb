/// Why the server closed a live connection: the codes every live endpoint uses (documents,
/// palettes, Find or Lose), listed in docs/API.md. The browser reconnects after every one but
/// 4400, 4401, 4403 and 4404.
public enum LiveCloseCode: UInt16, Sendable, CaseIterable {
    /// A message that is not a request: a defect in the sender, not something a retry mends.
    case badMessage = 4400
    /// Nothing says who is asking: sign in, or open a share link.
    case unauthorized = 4401
    /// The link this connection came through was revoked, or the requester's role changed.
    case accessRevoked = 4403
    /// There is no such document (or the requester may not see it), or it was deleted.
    case noDocument = 4404
    /// The window fell too far behind the document; it reconnects and catches up.
    case fellBehind = 4408
    /// The window sent more messages than a person could.
    case tooManyMessages = 4429
    /// The server's copy of the document closed, or the server can't reach its database for now:
    /// reconnect soon (the browser tries again at least every 2 s).
    case documentClosed = 4503
    /// What is stored can't be read (a corrupt document): trying again soon won't mend it, so
    /// the browser tries again with its usual, growing backoff.
    case unreadable = 1011
}
