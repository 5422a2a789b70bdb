import EmojiArtDigest
import EmojiArtKit
import EmojiArtWire
import Foundation
import HTTPTypes
import Hummingbird

/// `Idempotency-Key` on a REST change (an edit, undo, redo, rename, background or mosaic;
/// docs/API.md, "Sending a change again safely"): a request sent again with the key of one that
/// already changed the document — its answer lost with a connection, or a commit whose outcome
/// the server couldn't tell — is not applied again, and is answered with the document as it is.
/// A different request under a key a change already took is `422`, not applied. The key makes
/// the change's request id (``RequestKey``): its claim is the sender's, for one kind of change —
/// the same key from someone else, or on another route, is another request — and its
/// fingerprint is of what was asked. It is remembered as long as the document's log holds the
/// change, across restarts and servers. No live window's request id can be one.
struct IdempotencyKey {
    static let header = HTTPField.Name("Idempotency-Key")!

    /// The kinds of change a key may name (its route).
    enum Change: String {
        case edits, rename, background, mosaic, undo, redo
    }

    /// `<sender> <change> <key>`.
    let claim: String

    /// The request's key for `context`'s requester and `change`; nil without one. Read before
    /// the body: a bad key is refused first.
    /// - Throws: `400` for a key that is empty, longer than 64 characters, or not visible ASCII.
    init?(_ request: Request, _ context: AppRequestContext, _ change: Change) throws {
        guard let key = request.headers[Self.header] else { return nil }
        guard (1...LiveRequest.maximumRequestIDLength).contains(key.utf8.count),
            key.utf8.allSatisfy({ (0x21...0x7E).contains($0) })
        else {
            throw APIError.badRequest(
                "An Idempotency-Key has 1 to \(LiveRequest.maximumRequestIDLength) visible ASCII characters.")
        }
        // Whose keys: a user's (the local one in local mode), or a share link visitor's browser.
        let sender: String
        if let user = context.access.requester.userID {
            sender = user.uuidString
        } else if let browser = context.access.browser {
            sender = "browser-" + browser.prefix(32)
        } else {
            throw APIError.badRequest("An Idempotency-Key needs a signed-in user, or a browser that keeps cookies.")
        }
        claim = "\(sender) \(change.rawValue) \(key)"
    }

    /// The request id of the request that asks `payload` (its body, and whatever of its query
    /// changes what it does).
    func requestID(asking payload: some DataProtocol) -> String {
        RequestKey.requestID(
            claim: claim,
            fingerprint: Digest.hex(Array(Digest.sha256(payload).prefix(RequestKey.fingerprintLength / 2))))
    }
}
