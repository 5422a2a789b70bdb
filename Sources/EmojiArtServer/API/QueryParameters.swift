import EmojiArtDigest
import EmojiArtStore
import Foundation

/// Values read from a request's query, each refused with a `400` that says what it must be.
enum QueryParameter {
    /// A whole number in `range`, or nil when the query doesn't have it.
    static func integer(_ text: String?, named name: String, in range: ClosedRange<Int>) throws -> Int? {
        guard let text else { return nil }
        guard let value = Int(text), range.contains(value) else {
            throw APIError.badRequest(
                range.upperBound == Int.max
                    ? "\(name) must be a whole number, \(range.lowerBound) or more."
                    : "\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound).")
        }
        return value
    }
}

/// The `cursor` of `GET /api/documents` (and its answer's `next`): where the next page starts,
/// and whose list it belongs to, so one taken from another person's list is refused rather than
/// read. Opaque to clients: `v1.` then the position's time (its bits, in hex), its document id
/// and a tag of the list's owner.
struct DocumentListCursor: Equatable {
    var position: DocumentListing.Position

    /// The cursor's text for the list of `owner` (``DocumentListCursor/owner(of:)``).
    func text(for owner: String) -> String {
        "v1." + String(position.updatedAt.bitPattern, radix: 16) + "." + position.id.uuidString + "." + Self.tag(owner)
    }

    /// The cursor `text` says, if it was made for `owner`'s list; `400` otherwise.
    init(_ text: String, for owner: String) throws {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard text.utf8.count <= 100, parts.count == 4, parts[0] == "v1",
            let bits = UInt64(parts[1], radix: 16), let id = UUID(uuidString: String(parts[2]))
        else {
            throw APIError.badRequest("That cursor isn't one this server made; start again without it.")
        }
        let updatedAt = Double(bitPattern: bits)
        guard updatedAt.isFinite, parts[3] == Self.tag(owner) else {
            throw APIError.badRequest("That cursor belongs to another list; start again without it.")
        }
        position = DocumentListing.Position(updatedAt: updatedAt, id: id)
    }

    init(_ position: DocumentListing.Position) {
        self.position = position
    }

    /// Whose list a request reads: its account, else its browser (share links only), else no one.
    static func owner(of access: RequestAccess) -> String {
        if case .local = access.requester { return "local" }
        if let user = access.requester.userID { return "user:" + user.uuidString }
        return "browser:" + (access.browser ?? "")
    }

    private static func tag(_ owner: String) -> String {
        String(Digest.hex(Digest.sha256(Array(("emojiart document list " + owner).utf8))).prefix(16))
    }
}
