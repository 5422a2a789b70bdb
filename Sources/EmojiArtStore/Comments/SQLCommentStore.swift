import Foundation

/// Comment threads in `comment`, the same SQL on SQLite and PostgreSQL: one row per comment,
/// a thread's first with `thread_id` NULL and the pin's columns, each reply naming its thread.
/// A document's comments go with it (`ON DELETE CASCADE`), a thread's replies with the thread.
public struct SQLCommentStore: CommentStore {
    let database: any SQLDatabase

    public init(database: any SQLDatabase) {
        self.database = database
    }

    private static let columns = """
        id, thread_id, author_key, author_name, text, created_at, edited_at, x, y, emoji_id, anchor_version, resolved,
        updated_at
        """

    public func threads(of documentID: UUID) async throws -> [CommentThread] {
        let rows = try await database.read(
            SQLStatement(
                "SELECT \(Self.columns) FROM comment WHERE document_id = ? ORDER BY created_at, id",
                [.uuid(documentID)]))
        return try Self.threads(rows, of: documentID).sorted {
            ($0.updatedAt, $0.id.uuidString) > ($1.updatedAt, $1.id.uuidString)
        }
    }

    public func thread(containing commentID: UUID, of documentID: UUID) async throws -> CommentThread? {
        let rows = try await database.read(
            SQLStatement(
                """
                SELECT \(Self.columns) FROM comment WHERE document_id = ? AND (
                    id = (SELECT COALESCE(thread_id, id) FROM comment WHERE id = ? AND document_id = ?)
                    OR thread_id = (SELECT COALESCE(thread_id, id) FROM comment WHERE id = ? AND document_id = ?))
                ORDER BY created_at, id
                """,
                [.uuid(documentID), .uuid(commentID), .uuid(documentID), .uuid(commentID), .uuid(documentID)]))
        return try Self.threads(rows, of: documentID).first
    }

    public func createThread(_ thread: CommentThread, openLimit: Int, quota: CommentQuota) async throws {
        let first = thread.first
        do {
            try await database.write(
                counted(quota, document: thread.documentID, at: first.createdAt) + [
                    SQLStatement(
                        """
                        INSERT INTO comment (id, document_id, thread_id, author_key, author_name, text, created_at,
                            x, y, emoji_id, anchor_version, resolved, updated_at)
                        SELECT ?, ?, NULL, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?
                        WHERE (SELECT COUNT(*) FROM comment
                               WHERE document_id = ? AND thread_id IS NULL AND resolved = 0) < ?
                        RETURNING 1
                        """,
                        [
                            .uuid(first.id), .uuid(thread.documentID), .text(first.author.key),
                            .text(first.author.name), .text(first.text), .real(first.createdAt.timeIntervalSince1970),
                            .real(thread.position.x), .real(thread.position.y),
                            thread.emojiID.map(SQLValue.integer) ?? .null, .integer(thread.anchorVersion),
                            .integer(thread.resolved ? 1 : 0), .real(thread.updatedAt.timeIntervalSince1970),
                            .uuid(thread.documentID), .integer(openLimit),
                        ], errorIfNoRow: CommentStoreError.tooManyOpenThreads)
                ] + database.dialect.announcing(.comments(thread.documentID)))
        } catch SQLConstraintViolation.foreignKey {
            throw AccountStoreError.unknownDocument
        }
    }

    public func addReply(_ reply: Comment, to threadID: UUID, of documentID: UUID, quota: CommentQuota) async throws
        -> Bool
    {
        try await changed(
            counted(quota, document: documentID, at: reply.createdAt) + [
                SQLStatement(
                    """
                    INSERT INTO comment (id, document_id, thread_id, author_key, author_name, text, created_at,
                        resolved, updated_at)
                    SELECT ?, ?, ?, ?, ?, ?, ?, 0, ?
                    WHERE EXISTS (SELECT 1 FROM comment WHERE id = ? AND document_id = ? AND thread_id IS NULL)
                    RETURNING 1
                    """,
                    [
                        .uuid(reply.id), .uuid(documentID), .uuid(threadID), .text(reply.author.key),
                        .text(reply.author.name), .text(reply.text), .real(reply.createdAt.timeIntervalSince1970),
                        .real(reply.createdAt.timeIntervalSince1970), .uuid(threadID), .uuid(documentID),
                    ], errorIfNoRow: NoSuchComment()),
                Self.touch(thread: .uuid(threadID), documentID, at: reply.createdAt),
            ], documentID)
    }

    public func editComment(_ commentID: UUID, of documentID: UUID, text: String, at date: Date) async throws -> Bool {
        try await changed(
            [
                SQLStatement(
                    "UPDATE comment SET text = ?, edited_at = ? WHERE id = ? AND document_id = ? RETURNING 1",
                    [.text(text), .real(date.timeIntervalSince1970), .uuid(commentID), .uuid(documentID)],
                    errorIfNoRow: NoSuchComment()),
                Self.touch(
                    thread: .uuid(commentID), documentID, at: date,
                    threadOf: "(SELECT COALESCE(thread_id, id) FROM comment WHERE id = ? AND document_id = ?)"),
            ], documentID)
    }

    public func setResolved(
        _ resolved: Bool, thread threadID: UUID, of documentID: UUID, at date: Date, openLimit: Int
    ) async throws -> Bool {
        guard
            let row = try await database.read(
                SQLStatement(
                    "SELECT resolved FROM comment WHERE id = ? AND document_id = ? AND thread_id IS NULL",
                    [.uuid(threadID), .uuid(documentID)])
            ).first
        else { return false }
        if (row[0].int == 1) == resolved { return true }  // already so: nothing to tell anyone
        // Reopening counts against the open threads a document may have.
        let limit =
            resolved
            ? ""
            : """
             AND (SELECT COUNT(*) FROM comment
                  WHERE document_id = ? AND thread_id IS NULL AND resolved = 0) < ?
            """
        let limitBinds: [SQLValue] = resolved ? [] : [.uuid(documentID), .integer(openLimit)]
        return try await changed(
            database.dialect.serializing(Self.documentLock(documentID)) + [
                SQLStatement(
                    """
                    UPDATE comment SET resolved = ?, updated_at = ?
                    WHERE id = ? AND document_id = ? AND thread_id IS NULL\(limit) RETURNING 1
                    """,
                    [.integer(resolved ? 1 : 0), .real(date.timeIntervalSince1970), .uuid(threadID), .uuid(documentID)]
                        + limitBinds,
                    errorIfNoRow: resolved ? NoSuchComment() : CommentStoreError.tooManyOpenThreads)
            ], documentID)
    }

    public func deleteComment(_ commentID: UUID, of documentID: UUID) async throws -> Bool {
        // A reply's thread shows the activity; a thread's replies go with it.
        try await changed(
            [
                Self.touch(
                    thread: .uuid(commentID), documentID, at: Date(),
                    threadOf: "(SELECT thread_id FROM comment WHERE id = ? AND document_id = ?)"),
                SQLStatement(
                    "DELETE FROM comment WHERE id = ? AND document_id = ? RETURNING 1",
                    [.uuid(commentID), .uuid(documentID)], errorIfNoRow: NoSuchComment()),
            ], documentID)
    }

    public func movePins(_ places: [UUID: CommentPoint], of documentID: UUID, atVersion version: Int) async throws {
        guard !places.isEmpty else { return }
        try await database.write(
            places.map { id, point in
                SQLStatement(
                    """
                    UPDATE comment SET x = ?, y = ?, anchor_version = ?
                    WHERE id = ? AND document_id = ? AND thread_id IS NULL AND anchor_version <= ?
                    """,
                    [
                        .real(point.x), .real(point.y), .integer(version), .uuid(id), .uuid(documentID),
                        .integer(version),
                    ])
            })
    }

    // MARK: - Helpers

    private struct NoSuchComment: Error {}

    /// What serialises the comment writes of one document (its open-thread limit).
    private static func documentLock(_ documentID: UUID) -> String { "comments " + documentID.uuidString }

    /// The statements that check a write against `quota` and count it, first in its
    /// transaction: each subject's writes older than the quota's window are forgotten, one at its
    /// limit refuses the write (``CommentStoreError/tooManyComments``), and the write is
    /// recorded — in `comment_write`, which deleting a comment doesn't shrink. Where writers run
    /// at once (PostgreSQL) they take turns per document and per subject, always in that order.
    private func counted(_ quota: CommentQuota, document: UUID, at date: Date) -> [SQLStatement] {
        let dialect = database.dialect
        let subjects = quota.limits.keys.sorted()
        var statements = dialect.serializing(Self.documentLock(document))
        for subject in subjects { statements += dialect.serializing("comment writer " + subject) }
        for subject in subjects {
            statements += [
                SQLStatement(
                    "DELETE FROM comment_write WHERE subject = ? AND at <= ?",
                    [.text(subject), .real(quota.since.timeIntervalSince1970)]),
                SQLStatement(
                    "SELECT 1 WHERE (SELECT COUNT(*) FROM comment_write WHERE subject = ?) < ?",
                    [.text(subject), .integer(quota.limits[subject] ?? 0)],
                    errorIfNoRow: CommentStoreError.tooManyComments),
                SQLStatement(
                    "INSERT INTO comment_write (subject, at) VALUES (?, ?)",
                    [.text(subject), .real(date.timeIntervalSince1970)]),
            ]
        }
        return statements
    }

    /// Runs a change and tells the other servers; false if its comment wasn't there.
    private func changed(_ statements: [SQLStatement], _ documentID: UUID) async throws -> Bool {
        do {
            try await database.write(statements + database.dialect.announcing(.comments(documentID)))
            return true
        } catch is NoSuchComment {
            return false
        }
    }

    /// Marks the thread (`threadOf` the comment bound — a subquery taking the comment's id and
    /// the document's — or the thread itself) as active at `date`.
    private static func touch(
        thread: SQLValue, _ documentID: UUID, at date: Date, threadOf: String? = nil
    ) -> SQLStatement {
        SQLStatement(
            "UPDATE comment SET updated_at = ? WHERE id = \(threadOf ?? "?") AND document_id = ? AND thread_id IS NULL",
            [.real(date.timeIntervalSince1970), thread] + (threadOf == nil ? [] : [.uuid(documentID)])
                + [.uuid(documentID)])
    }

    private static func threads(_ rows: [SQLRow], of documentID: UUID) throws -> [CommentThread] {
        var threads: [CommentThread] = []
        var index: [UUID: Int] = [:]
        var replies: [(UUID, Comment)] = []
        for row in rows {
            guard let id = row[0].uuidValue, let key = row[2].string, let name = row[3].string,
                let text = row[4].string, let created = row[5].double
            else { throw StoreError.corrupt("a comment of document \(documentID) can't be read") }
            let comment = Comment(
                id: id, text: text, author: CommentAuthor(key: key, name: name),
                createdAt: Date(timeIntervalSince1970: created),
                editedAt: row[6].double.map(Date.init(timeIntervalSince1970:)))
            if let thread = row[1].uuidValue {
                replies.append((thread, comment))
                continue
            }
            guard let x = row[7].double, let y = row[8].double, let updated = row[12].double else {
                throw StoreError.corrupt("comment thread \(id) can't be read")
            }
            index[id] = threads.count
            threads.append(
                CommentThread(
                    documentID: documentID, first: comment, position: CommentPoint(x: x, y: y),
                    emojiID: row[9].int, anchorVersion: row[10].int ?? 0, resolved: row[11].int == 1,
                    updatedAt: Date(timeIntervalSince1970: updated)))
        }
        for (thread, reply) in replies {
            if let at = index[thread] { threads[at].replies.append(reply) }
        }
        return threads
    }
}
