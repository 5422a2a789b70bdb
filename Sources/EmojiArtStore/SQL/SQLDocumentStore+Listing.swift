import EmojiArtKit
import Foundation

extension SQLDocumentStore {
    /// One page of ``DocumentListing``, read with indexes only: every document through
    /// `document_by_change` (local mode), a member's through `document_member_by_user` — so the
    /// cost is the requester's documents, never everyone's — and those links open by their ids.
    public func listDocuments(_ listing: DocumentListing) async throws -> DocumentListPage {
        let limit = max(1, listing.limit)
        // Found by id (a member's, a link's): through the covering index where rows hold snapshots.
        let documentsByID =
            database.dialect.keepsLargeValuesInRow ? "document d INDEXED BY document_listing" : "document d"
        var entries: [DocumentListPage.Entry]
        switch listing.scope {
        case .everything:
            entries = try await page(from: "document d", role: "'owner'", where: [], listing, limit: limit + 1)
        case .visible(let user, let links):
            entries = []
            if let user {
                entries = try await page(
                    from: "document_member m JOIN \(documentsByID) ON d.id = m.document_id", role: "m.role",
                    where: [("m.user_id = ?", [.uuid(user)])], listing, limit: limit + 1)
            }
            if !links.isEmpty {
                // A browser's links are few (one per link it opened): their documents are read by id
                // and merged in, each with the higher of its two roles.
                let ids = links.keys.sorted { $0.uuidString < $1.uuidString }
                let linked = try await page(
                    from: documentsByID, role: "'viewer'",
                    where: [("d.id IN (\(ids.map { _ in "?" }.joined(separator: ", ")))", ids.map { .uuid($0) })],
                    listing, limit: limit + 1)
                var byID = Dictionary(entries.map { ($0.summary.id, $0) }, uniquingKeysWith: { first, _ in first })
                for var entry in linked {
                    let linkRole = links[entry.summary.id] ?? .viewer
                    entry.role = max(byID[entry.summary.id]?.role ?? linkRole, linkRole)
                    byID[entry.summary.id] = entry
                }
                entries = byID.values.sorted { $0.position.precedes($1.position) }
            }
        }
        let more = entries.count > limit
        entries = Array(entries.prefix(limit))
        return DocumentListPage(entries: entries, next: more ? entries.last?.position : nil)
    }

    public func foldTitles(after: UUID?, limit: Int) async throws -> UUID? {
        // Along the primary key from where the last batch ended: each batch costs its own rows,
        // never a scan of those folded before it.
        let from = after == nil ? "" : "id > ? AND "
        let rows = try await database.read(
            SQLStatement(
                "SELECT id, title FROM document WHERE \(from)title_key IS NULL ORDER BY id LIMIT \(max(1, limit))",
                after.map { [.uuid($0)] } ?? []))
        guard !rows.isEmpty else { return nil }
        // One transaction, one commit, the rows in the order of their ids — as appends sharing a
        // commit take them, and other servers folding too — so none of them can deadlock.
        let folds = try rows.map { row -> (id: UUID, statement: SQLStatement) in
            guard let id = row[0].uuidValue, let title = row[1].string else {
                throw StoreError.corrupt("a document's title can't be read")
            }
            // A title written meanwhile was written with its own folded form.
            let fold = SQLStatement(
                "UPDATE document SET title_key = ? WHERE id = ? AND title = ? AND title_key IS NULL",
                [.text(SearchFolding.fold(title)), .uuid(id), .text(title)])
            return (id, fold)
        }
        try await database.write(folds.map(\.statement))
        return folds.last?.id
    }

    /// Up to `limit` summaries from `source` (`d` the documents), after the listing's position,
    /// with its title filter, newest change first.
    private func page(
        from source: String, role: String, where conditions: [(String, [SQLValue])], _ listing: DocumentListing,
        limit: Int
    ) async throws -> [DocumentListPage.Entry] {
        var clauses = conditions.map(\.0)
        var values = conditions.flatMap(\.1)
        if let after = listing.after {
            // The first bound is a range the index can seek to; the rest breaks the tie.
            clauses.append("d.updated_at <= ? AND (d.updated_at < ? OR (d.updated_at = ? AND d.id < ?))")
            values += [.real(after.updatedAt), .real(after.updatedAt), .real(after.updatedAt), .uuid(after.id)]
        }
        if let text = listing.titleContains, !text.isEmpty {
            // Both sides folded alike (``SearchFolding``); a title not folded yet (from before
            // shared migration 8, until the maintenance reaches it) lower-cased by the database.
            clauses.append("COALESCE(d.title_key, lower(d.title)) LIKE ? ESCAPE '\\'")
            values.append(.text("%" + Self.likeEscaped(SearchFolding.fold(text)) + "%"))
        }
        let filter = clauses.isEmpty ? "" : "WHERE " + clauses.joined(separator: " AND ")
        let rows = try await database.read(
            SQLStatement(
                """
                SELECT d.id, d.title, d.emoji_count, d.version, d.created_at, d.updated_at, \(role)
                FROM \(source) \(filter)
                ORDER BY d.updated_at DESC, d.id DESC LIMIT \(limit)
                """, values))
        return try rows.map { row in
            guard let role = row[6].string.flatMap(DocumentRole.init(rawValue:)) else {
                throw StoreError.corrupt("a document member's role can't be read")
            }
            return DocumentListPage.Entry(summary: try Self.summary(row), role: role)
        }
    }

    /// `text` matched literally by LIKE: its `%`, `_` and `\` escaped with `\`.
    static func likeEscaped(_ text: String) -> String {
        var escaped = ""
        for character in text {
            if character == "%" || character == "_" || character == "\\" { escaped.append("\\") }
            escaped.append(character)
        }
        return escaped
    }
}
