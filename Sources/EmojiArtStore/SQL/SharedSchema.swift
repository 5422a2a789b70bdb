import EmojiArtKit
import Foundation

/// The tables both SQL databases keep the same way, and their history: each driver applies
/// these after its own migrations, in order, and records them with its own. Shipped migrations
/// never change; new ones are appended.
public enum SharedSchema {
    public struct Migration: Sendable {
        /// Counted from 1 among the shared migrations.
        public var number: Int
        public var name: String
        public var statements: [String]
    }

    public static func migrations(_ dialect: SQLDialect) -> [Migration] {
        let (uuid, real, integer) = (dialect.uuidType, dialect.realType, dialect.integerType)
        let local = "'\(LocalUser.id.uuidString)'"
        return [
            Migration(
                number: 1, name: "accounts, sessions, tokens, document members, share links, palettes per user",
                statements: [
                    """
                    CREATE TABLE app_user (
                        id \(uuid) PRIMARY KEY,
                        name TEXT NOT NULL,
                        name_key TEXT NOT NULL UNIQUE,
                        password_hash TEXT NOT NULL,
                        is_admin \(integer) NOT NULL,
                        created_at \(real) NOT NULL,
                        password_changed_at \(real) NOT NULL
                    )
                    """,
                    // The one user of local mode, who owns what was made before accounts. Its
                    // name key is empty, so no one signs in as it; its hash matches no password.
                    """
                    INSERT INTO app_user (id, name, name_key, password_hash, is_admin, created_at, password_changed_at)
                    VALUES (\(local), '\(LocalUser.name)', '', '!', 0, 0, 0)
                    """,
                    """
                    CREATE TABLE user_palette (
                        owner_id \(uuid) NOT NULL REFERENCES app_user(id) ON DELETE CASCADE,
                        id \(uuid) NOT NULL,
                        position \(integer) NOT NULL,
                        name TEXT NOT NULL,
                        emojis TEXT NOT NULL,
                        PRIMARY KEY (owner_id, id)
                    )
                    """,
                    """
                    INSERT INTO user_palette (owner_id, id, position, name, emojis)
                    SELECT \(local), id, position, name, emojis FROM palette
                    """,
                    "DROP TABLE palette",
                    """
                    CREATE TABLE user_session (
                        token_hash TEXT PRIMARY KEY,
                        user_id \(uuid) NOT NULL REFERENCES app_user(id) ON DELETE CASCADE,
                        created_at \(real) NOT NULL,
                        last_seen_at \(real) NOT NULL
                    )
                    """,
                    "CREATE INDEX user_session_by_user ON user_session (user_id)",
                    "CREATE INDEX user_session_by_last_seen ON user_session (last_seen_at)",
                    """
                    CREATE TABLE api_token (
                        id \(uuid) PRIMARY KEY,
                        token_hash TEXT NOT NULL UNIQUE,
                        user_id \(uuid) NOT NULL REFERENCES app_user(id) ON DELETE CASCADE,
                        name TEXT NOT NULL,
                        created_at \(real) NOT NULL,
                        last_used_at \(real)
                    )
                    """,
                    "CREATE INDEX api_token_by_user ON api_token (user_id)",
                    """
                    CREATE TABLE document_member (
                        document_id \(uuid) NOT NULL REFERENCES document(id) ON DELETE CASCADE,
                        user_id \(uuid) NOT NULL REFERENCES app_user(id) ON DELETE CASCADE,
                        role TEXT NOT NULL,
                        PRIMARY KEY (document_id, user_id)
                    )
                    """,
                    "CREATE INDEX document_member_by_user ON document_member (user_id)",
                    // What was made before accounts belongs to the local user.
                    "INSERT INTO document_member (document_id, user_id, role) SELECT id, \(local), 'owner' FROM document",
                    """
                    CREATE TABLE share_link (
                        id \(uuid) PRIMARY KEY,
                        document_id \(uuid) NOT NULL REFERENCES document(id) ON DELETE CASCADE,
                        token TEXT NOT NULL UNIQUE,
                        role TEXT NOT NULL,
                        created_at \(real) NOT NULL
                    )
                    """,
                    "CREATE INDEX share_link_by_document ON share_link (document_id)",
                    """
                    CREATE TABLE sign_in_failure (
                        subject TEXT NOT NULL,
                        at \(real) NOT NULL
                    )
                    """,
                    "CREATE INDEX sign_in_failure_by_subject ON sign_in_failure (subject, at)",
                ]),
            Migration(
                number: 2, name: "who may read an image, share links kept per browser, revocations counted",
                statements: [
                    // What uses an image: a document (its background), the user who uploaded it,
                    // or the game (subject: the nil UUID). `/api/images/{id}` asks it.
                    """
                    CREATE TABLE image_use (
                        image_id TEXT NOT NULL,
                        kind TEXT NOT NULL,
                        subject \(uuid) NOT NULL,
                        PRIMARY KEY (image_id, kind, subject)
                    )
                    """,
                    // The share links a browser opened, by the SHA-256 of its browser cookie.
                    """
                    CREATE TABLE browser_link (
                        browser_hash TEXT NOT NULL,
                        link_id \(uuid) NOT NULL REFERENCES share_link(id) ON DELETE CASCADE,
                        granted_at \(real) NOT NULL,
                        PRIMARY KEY (browser_hash, link_id)
                    )
                    """,
                    "CREATE INDEX browser_link_by_link ON browser_link (link_id)",
                    // One row: how many revocations have committed (each in the transaction that
                    // revokes), so a live connection can tell cheaply whether to check again.
                    "CREATE TABLE access_revocation (id \(integer) PRIMARY KEY, total \(integer) NOT NULL)",
                    "INSERT INTO access_revocation (id, total) VALUES (1, 0)",
                ]),
            Migration(
                number: 3, name: "what the editor remembers per user",
                statements: [
                    // ``UserPreferences`` as JSON: the picker's skin tone and recent emojis.
                    """
                    CREATE TABLE user_preference (
                        user_id \(uuid) PRIMARY KEY REFERENCES app_user(id) ON DELETE CASCADE,
                        preferences TEXT NOT NULL
                    )
                    """
                ]),
            Migration(
                number: 4, name: "comment threads",
                statements: [
                    // One row per comment: a thread's first (`thread_id` NULL) carries the pin —
                    // a point, or an emoji and where it was last seen, as of `anchor_version` —
                    // whether it is resolved, and its newest activity; a reply names its thread.
                    """
                    CREATE TABLE comment (
                        id \(uuid) PRIMARY KEY,
                        document_id \(uuid) NOT NULL REFERENCES document(id) ON DELETE CASCADE,
                        thread_id \(uuid) REFERENCES comment(id) ON DELETE CASCADE,
                        author_key TEXT NOT NULL,
                        author_name TEXT NOT NULL,
                        text TEXT NOT NULL,
                        created_at \(real) NOT NULL,
                        edited_at \(real),
                        x \(real),
                        y \(real),
                        emoji_id \(integer),
                        anchor_version \(integer),
                        resolved \(integer) NOT NULL,
                        updated_at \(real) NOT NULL
                    )
                    """,
                    "CREATE INDEX comment_by_document ON comment (document_id, thread_id)",
                    "CREATE INDEX comment_by_thread ON comment (thread_id)",
                    // The flood limit: each subject's (an author's, an address's) comment writes
                    // of the last minute, kept apart so deleting comments doesn't forget them.
                    "CREATE TABLE comment_write (subject TEXT NOT NULL, at \(real) NOT NULL)",
                    "CREATE INDEX comment_write_by_subject ON comment_write (subject, at)",
                ]),
            Migration(
                number: 5, name: "the ids of deleted documents",
                statements: [
                    // A deleted document's id, kept for good so that no one can make a document
                    // under it again: a browser that made it offline and never heard the server's
                    // answer repeats `PUT /api/documents/{id}` (docs/OFFLINE.md). 24 bytes or so
                    // a deleted document.
                    "CREATE TABLE deleted_document (id \(uuid) PRIMARY KEY, deleted_at \(real) NOT NULL)"
                ]),
            Migration(
                number: 6, name: "the document list read a page at a time",
                statements: [
                    // Local mode's list, newest change first, a page at a time
                    // (``DocumentListing``); a member's list goes through document_member_by_user.
                    "CREATE INDEX document_by_change ON document (updated_at, id)"
                ]),
            Migration(
                number: 7, name: "a request found in the log by its id",
                statements: [
                    // A request resent from further back than a live copy remembers is looked
                    // for here (``DocumentStore/version(ofRequest:in:after:)``): one probe,
                    // not a scan of the document's history.
                    "CREATE INDEX edit_log_by_request ON edit_log (document_id, request_id) WHERE request_id IS NOT NULL"
                ]),
            Migration(
                number: 8, name: "titles as searched",
                statements: [
                    // Each title folded as every search is (``SearchFolding``: case, accents,
                    // width), written with the title. Documents from before this are folded by
                    // the server's maintenance (``SQLDocumentStore/foldTitles(after:limit:)``),
                    // found through the index below (empty once they are all folded); until then
                    // their titles are searched lower-cased by the database.
                    "ALTER TABLE document ADD COLUMN title_key TEXT",
                    "CREATE INDEX document_title_unfolded ON document (id) WHERE title_key IS NULL",
                ]),
            Migration(
                number: 9, name: "a key's request found in the log by its claim",
                statements: [
                    // Which request took a REST client's key (``RequestKey``), whatever it asked:
                    // one probe (``DocumentStore/firstRequest(in:claiming:)``). Only keyed
                    // requests are in it, so the live windows' appends don't add to it.
                    "CREATE INDEX edit_log_by_key ON edit_log (document_id, \(requestClaim)) WHERE \(keyedRequest)"
                ]),
            Migration(
                number: 10, name: "the document list read from indexes alone",
                statements: dialect.keepsLargeValuesInRow
                    ? [
                        // Every column a list entry shows, in the indexes it is found through —
                        // local mode's in change order, a member's and a link's by id — so no
                        // listing reads a document's row, where SQLite keeps its snapshot before
                        // them (``SQLDialect/keepsLargeValuesInRow``).
                        "DROP INDEX document_by_change",
                        "CREATE INDEX document_by_change ON document (\(listingColumns(leading: "updated_at, id")))",
                        "CREATE INDEX document_listing ON document (\(listingColumns(leading: "id, updated_at")))",
                    ] : []),
        ]
    }

    /// The columns of migration 10's covering indexes after `leading`.
    private static func listingColumns(leading: String) -> String {
        leading + ", created_at, title, emoji_count, version, title_key"
    }

    /// A log entry's request id is a key's (``RequestKey``): as migration 9's index and the
    /// queries that use it spell it.
    public static let keyedRequest = "substr(request_id, 1, \(RequestKey.prefix.count)) = '\(RequestKey.prefix)'"
    /// A keyed request id's claim, as migration 9's index and the queries that use it spell it.
    public static let requestClaim = "substr(request_id, \(RequestKey.claimOffset))"
}

/// Shared statements that the documents' own SQL runs inside its transactions.
public enum SharedStatements {
    /// Counts a revocation, in the transaction that makes it (``RevocationStore``).
    public static let revocation = SQLStatement("UPDATE access_revocation SET total = total + 1 WHERE id = 1")

    /// Makes `user` the owner of a document just inserted.
    public static func owner(_ user: UUID, of document: UUID) -> SQLStatement {
        SQLStatement(
            "INSERT INTO document_member (document_id, user_id, role) VALUES (?, ?, 'owner')",
            [.uuid(document), .uuid(user)])
    }
}
