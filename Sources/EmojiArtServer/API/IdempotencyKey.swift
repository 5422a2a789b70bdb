import EmojiArtWire
import HTTPTypes
import Hummingbird

/// `Idempotency-Key` on a REST change (an edit, undo, redo, rename, background or mosaic;
/// docs/API.md, "Editing"): a request sent again with the key of one that already changed the
/// document — its answer lost with a connection, or a commit whose outcome the server couldn't
/// tell — is not applied again, and is answered with the document as it is. It is the live
/// windows' request id, so it is remembered as long (the newest 2,000 changes of the document,
/// across restarts and servers, and further back by the log). A key is its sender's own — a
/// user's, or a share link visitor's browser's — for one kind of change: the same key from
/// someone else, or on another route, is another request. No live window's request id can be
/// one (``LiveRequest/restPrefix``).
enum IdempotencyKey {
    static let header = HTTPField.Name("Idempotency-Key")!

    /// The kinds of change a key may name (its route).
    enum Change: String {
        case edits, rename, background, mosaic, undo, redo
    }

    /// The request id the request's key makes for `context`'s requester and `change`; nil without a key.
    /// - Throws: `400` for a key that is empty, longer than 64 characters, or not visible ASCII.
    static func requestID(_ request: Request, _ context: AppRequestContext, _ change: Change) throws -> String? {
        guard let key = request.headers[header] else { return nil }
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
        return LiveRequest.restPrefix + "\(sender) \(change.rawValue) \(key)"
    }
}
