import EmojiArtKit
import Foundation

/// Where documents and their edit logs live. A document is stored as a snapshot (the native
/// `.emojiart` bytes at some version) plus the log of changes after it; opening replays the log
/// onto the snapshot, and compaction folds the log into a new snapshot.
///
/// The log before the snapshot is kept too, as the document's history, with checkpoints (the
/// document at a version, every so many versions) so that reading any past version folds at
/// most that many entries (``HistoryReader``); only ``dropHistory(of:through:keeping:)``
/// (`serve --history-days`) removes old entries.
///
/// One aggregate per protocol: palettes (``PaletteStore``), images (``ImageStore``), users,
/// sessions, tokens, shares and links have stores of their own; ``Stores`` holds one of each.
/// One implementation, ``SQLDocumentStore``, on either database: SQLite (EmojiArtStoreSQLite, the
/// default, in a file or in memory) or PostgreSQL (EmojiArtStorePostgres, several servers on one
/// database). Every method either completes whole or throws and changes nothing.
public protocol DocumentStore: Sendable {
    /// A short name for health checks and logs, e.g. "sqlite".
    var kind: String { get }

    /// Asks the database the simplest question there is: throws if it doesn't answer
    /// (`/api/ready`).
    func ping() async throws

    /// Every document's summary, most recently changed first (backups, the command line).
    func listDocuments() async throws -> [DocumentSummary]

    /// One page of the documents someone may see (``DocumentListing``), at a cost that grows
    /// with their documents and the page, not with everyone's.
    func listDocuments(_ listing: DocumentListing) async throws -> DocumentListPage

    /// Stores a new document at version `version` with an empty log, owned by `owner` (its
    /// ``DocumentRole/owner`` membership is written in the same transaction). Throws
    /// ``StoreError/notFound`` for the id of a document that was deleted: an id is used once.
    func createDocument(_ record: StoredDocument, owner: UUID) async throws

    /// The document's latest snapshot and the log entries after it, in version order, or nil.
    func loadDocument(id: UUID) async throws -> (snapshot: StoredDocument, log: [LogEntry])?

    /// Appends several documents' log entries, each with its document's new summary, in as few
    /// transactions as the store can (SQLite: one). Each append succeeds or fails alone, so the
    /// result is one per append, in order; a failure of the whole write (the database is
    /// gone) throws instead. ``CommitQueue`` is the one caller in the server.
    ///
    /// An append fails with ``StoreError/versionConflict`` unless its first entry's version is
    /// exactly one more than the stored version (so two writers can never fork a document), and
    /// with ``StoreError/notFound`` if the document is gone.
    func append(_ appends: [LogAppend]) async throws -> [Result<Void, any Error>]

    /// How many of ``CommitQueue``'s gathered writes the store takes at once: 1 (SQLite, one
    /// writer) unless a store says more (PostgreSQL, several pooled connections).
    var concurrentAppends: Int { get }

    /// The log entries after `version`, in order: what another server appended since. Nil if
    /// they are no longer all in the log (a newer snapshot folded some in) or the document is
    /// gone; the caller then loads the document afresh.
    func logEntries(of id: UUID, after version: Int) async throws -> [LogEntry]?

    /// Replaces the snapshot with one at `snapshot.version`: opening starts there. The log
    /// entries it covers stay, as history. Ignored if the stored snapshot is already at that
    /// version or newer. (Callers keep a tail of the log after the snapshot: the live library's
    /// snapshots trail the newest version, so a copy opened afresh replays the tail and has the
    /// undo history and request ids back.)
    func saveSnapshot(_ snapshot: StoredDocument) async throws

    // MARK: History

    /// The log entries with versions in `range`, in version order (none where history was
    /// thinned). Empty if the document is gone.
    func logEntries(of id: UUID, in range: ClosedRange<Int>) async throws -> [LogEntry]

    /// At most `limit` log entries at or below `version`, newest first.
    func recentLogEntries(of id: UUID, through version: Int, limit: Int) async throws -> [LogEntry]

    /// The version the request `requestID` made, if the log still holds it after `version`
    /// (none where history was thinned): for a request resent from long ago, older than the
    /// request ids a live copy remembers.
    func version(ofRequest requestID: String, in id: UUID, after version: Int) async throws -> Int?

    /// The oldest keyed request in the document's log under `claim` (``RequestKey``), with its
    /// version: the request that took the key, as long as the log holds it.
    func firstRequest(in id: UUID, claiming claim: String) async throws -> (requestID: String, version: Int)?

    /// The newest checkpoint at or before `version`, or nil (no such document, or none that old).
    func checkpoint(of id: UUID, atOrBefore version: Int) async throws -> StoredDocument?

    /// The version of the oldest checkpoint: where a document's readable history starts (0
    /// unless it was thinned). Nil if the document is gone.
    func oldestCheckpointVersion(of id: UUID) async throws -> Int?

    /// Keeps a document as it was at a version, to read versions after it from. Ignored if
    /// there is one at that version already, or the document is gone.
    func saveCheckpoint(_ checkpoint: StoredDocument) async throws

    /// Thins history: deletes the log entries and checkpoints at or below `version` except
    /// those at the versions in `keeping` (whose checkpoints must already be saved). Never
    /// past the snapshot opening starts from.
    func dropHistory(of id: UUID, through version: Int, keeping: Set<Int>) async throws

    /// Deletes a document, its log, its members and its links. Returns false if there was no
    /// such document.
    func deleteDocument(id: UUID) async throws -> Bool

    /// Folds, as titles are searched (``SearchFolding``), the titles of up to `limit` documents
    /// stored before titles were kept folded (shared migration 8), in the order of their ids,
    /// from after `after`; returns where to go on from, or nil once there are none left. The
    /// server's maintenance calls it, a batch a turn, until then.
    func foldTitles(after: UUID?, limit: Int) async throws -> UUID?
}

/// The changes other processes commit to a store they share — other servers on PostgreSQL,
/// the command line on an SQLite file — as this one hears of them.
public protocol StoreChangeFeed: Sendable {
    /// Hands `handle` the changes committed to the store from elsewhere (PostgreSQL: by any
    /// server, this one's too), one at a time, until the calling task is cancelled. Run by the
    /// server as a service.
    func followChanges(_ handle: @Sendable (StoreChange) async -> Void) async
}

/// A change committed to a shared store.
public enum StoreChange: Sendable, Equatable {
    /// A document's log grew to `version`.
    case appended(UUID, version: Int)
    case deleted(UUID)
    case palettes
    /// A share link was revoked: connections it opened close.
    case linkRevoked(UUID)
    /// Who may see a document changed (shared with someone, or no longer): open connections
    /// check their role again.
    case membersChanged(UUID)
    /// A document's comments changed (a thread started, replied to, edited, resolved or
    /// deleted): its windows fetch them again.
    case comments(UUID)
    /// Changes may have been missed (the feed was reconnected), or too many to name (a user
    /// removed with their documents): check everything.
    case resync

    /// As announced between servers: `a <id> <version>`, `d <id>`, `p`, `l <link id>`,
    /// `m <document id>`, `c <document id>`, `r`.
    public var payload: String {
        switch self {
        case .appended(let id, let version): "a \(id.uuidString) \(version)"
        case .deleted(let id): "d \(id.uuidString)"
        case .palettes: "p"
        case .linkRevoked(let id): "l \(id.uuidString)"
        case .membersChanged(let id): "m \(id.uuidString)"
        case .comments(let id): "c \(id.uuidString)"
        case .resync: "r"
        }
    }

    public init?(payload: String) {
        let parts = payload.split(separator: " ")
        switch (parts.first, parts.count) {
        case ("a", 3):
            guard let id = UUID(uuidString: String(parts[1])), let version = Int(parts[2]) else { return nil }
            self = .appended(id, version: version)
        case ("d", 2):
            guard let id = UUID(uuidString: String(parts[1])) else { return nil }
            self = .deleted(id)
        case ("p", 1): self = .palettes
        case ("l", 2):
            guard let id = UUID(uuidString: String(parts[1])) else { return nil }
            self = .linkRevoked(id)
        case ("m", 2):
            guard let id = UUID(uuidString: String(parts[1])) else { return nil }
            self = .membersChanged(id)
        case ("c", 2):
            guard let id = UUID(uuidString: String(parts[1])) else { return nil }
            self = .comments(id)
        case ("r", 1): self = .resync
        default: return nil
        }
    }
}

/// A document snapshot with its identity and metadata.
public struct StoredDocument: Sendable, Equatable {
    public var id: UUID
    public var document: EmojiArtDocument
    /// The version the snapshot is at.
    public var version: Int
    public var createdAt: Date
    public var updatedAt: Date

    public init(id: UUID, document: EmojiArtDocument, version: Int, createdAt: Date, updatedAt: Date) {
        self.id = id
        self.document = document
        self.version = version
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    public var summary: DocumentSummary {
        DocumentSummary(
            id: id, title: document.title, emojiCount: document.emojis.count, version: version,
            createdAt: createdAt, updatedAt: updatedAt)
    }
}

/// What the document browser lists.
public struct DocumentSummary: Sendable, Equatable, Codable {
    public var id: UUID
    public var title: String
    public var emojiCount: Int
    public var version: Int
    public var createdAt: Date
    public var updatedAt: Date

    public init(id: UUID, title: String, emojiCount: Int, version: Int, createdAt: Date, updatedAt: Date) {
        self.id = id
        self.title = title
        self.emojiCount = emojiCount
        self.version = version
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }
}

/// One acknowledged change: the edits that took the document from `version - 1` to `version`
/// (an edit request, or what an undo or redo applied).
public struct LogEntry: Sendable, Equatable {
    public var version: Int
    public var edits: [Edit]
    public var date: Date
    /// What made it, so another server replaying the log keeps the same undo history.
    public var step: LogStep
    /// The live window request that made it, so a request resent later — to this server or
    /// another, before a restart or after — is recognised rather than applied twice.
    public var requestID: String?
    /// Who made it (a user's id; nil for entries from before authors were kept, and for tools).
    public var author: UUID?
    /// For an undo or redo, the name of the step it undid or redid ("Move"); nil otherwise
    /// (an edit's name comes from its first edit: ``displayName``).
    public var actionName: String?

    public init(
        version: Int, edits: [Edit], date: Date, step: LogStep = .unrecorded, requestID: String? = nil,
        author: UUID? = nil, actionName: String? = nil
    ) {
        self.version = version
        self.edits = edits
        self.date = date
        self.step = step
        self.requestID = requestID
        self.author = author
        self.actionName = actionName
    }

    /// What the history shows for it: "Move", "Undo Move", "Redo Add 🐶".
    public var displayName: String {
        switch step {
        case .undo: "Undo" + (actionName.map { " " + $0 } ?? "")
        case .redo: "Redo" + (actionName.map { " " + $0 } ?? "")
        case .perform, .unrecorded: edits.first?.actionName ?? "Change"
        }
    }
}

/// What made a log entry.
public enum LogStep: Sendable, Equatable, Codable {
    /// An edit request: its edits are the request's, one undo step (merged into the previous
    /// one when both carry the same gesture key).
    case perform(gesture: String?)
    /// An undo; its edits are what the undo applied.
    case undo
    /// A redo; its edits are what the redo applied.
    case redo
    /// Not recorded (entries from before steps were kept): replayed as plain edits.
    case unrecorded

    /// As the SQL stores keep it: `perform`, `perform:<gesture>`, `undo`, `redo`, or NULL.
    public var storedForm: String? {
        switch self {
        case .perform(nil): "perform"
        case .perform(let gesture?): "perform:" + gesture
        case .undo: "undo"
        case .redo: "redo"
        case .unrecorded: nil
        }
    }

    public init(storedForm: String?) {
        switch storedForm {
        case "perform": self = .perform(gesture: nil)
        case "undo": self = .undo
        case "redo": self = .redo
        case let form? where form.hasPrefix("perform:"): self = .perform(gesture: String(form.dropFirst(8)))
        default: self = .unrecorded
        }
    }
}

/// Errors from a store, with what to do about them.
public enum StoreError: Error, Equatable, CustomStringConvertible {
    /// The document was changed by another writer; reload it.
    case versionConflict(id: UUID, expected: Int)
    /// There is no such document.
    case notFound(UUID)
    /// The stored bytes could not be read back (a damaged or hand-edited database).
    case corrupt(String)
    /// The database cannot be reached or used (a PostgreSQL server that is down, a bad address).
    case unavailable(String)

    public var description: String {
        switch self {
        case .versionConflict(let id, let expected):
            "document \(id) is no longer at version \(expected); another writer changed it. Reload it."
        case .notFound(let id): "there is no document \(id)."
        case .corrupt(let detail): "the store holds data that can't be read: \(detail)"
        case .unavailable(let detail): detail
        }
    }
}

extension DocumentStore {
    /// Nothing to fold, for stores that keep no folded titles.
    public func foldTitles(after: UUID?, limit: Int) async throws -> UUID? { nil }

    /// Through ``logEntries(of:in:)``, for stores with nothing quicker.
    public func version(ofRequest requestID: String, in id: UUID, after version: Int) async throws -> Int? {
        guard version < Int.max else { return nil }
        return try await logEntries(of: id, in: (version + 1)...Int.max).first { $0.requestID == requestID }?.version
    }

    /// Through ``logEntries(of:in:)``, for stores with nothing quicker.
    public func firstRequest(in id: UUID, claiming claim: String) async throws -> (requestID: String, version: Int)? {
        for entry in try await logEntries(of: id, in: 0...Int.max) {
            if let requestID = entry.requestID, RequestKey.claim(of: requestID) == claim[...] {
                return (requestID, entry.version)
            }
        }
        return nil
    }

    /// Through ``loadDocument(id:)``, for stores with nothing quicker.
    public func logEntries(of id: UUID, after version: Int) async throws -> [LogEntry]? {
        guard let (snapshot, log) = try await loadDocument(id: id), snapshot.version <= version else { return nil }
        return log.filter { $0.version > version }
    }

    /// Opens a document: the snapshot with its log replayed, at the latest version.
    public func loadCurrent(id: UUID) async throws -> StoredDocument? {
        guard let (snapshot, log) = try await loadDocument(id: id) else { return nil }
        return try snapshot.folding(log)
    }
}

extension StoredDocument {
    /// This snapshot with log entries applied as plain edits: the document at the last one's
    /// version.
    ///
    /// - Throws: ``StoreError/corrupt(_:)`` if the entries skip a version or one no longer applies.
    public func folding(_ entries: some Sequence<LogEntry>) throws -> StoredDocument {
        var current = self
        for entry in entries { try current.fold(entry) }
        return current
    }

    /// Applies the next log entry as plain edits, in place.
    ///
    /// - Throws: ``StoreError/corrupt(_:)`` if the entry is not the next version or no longer
    ///   applies (the document may then be part-changed: callers throw it away).
    public mutating func fold(_ entry: LogEntry) throws {
        guard entry.version == version + 1 else {
            throw StoreError.corrupt("document \(id)'s log skips from \(version) to \(entry.version)")
        }
        for edit in entry.edits {
            do {
                try document.apply(edit)
            } catch {
                throw StoreError.corrupt("document \(id)'s log entry \(entry.version) no longer applies: \(error)")
            }
        }
        version = entry.version
        updatedAt = entry.date
    }
}

/// One document's log entries to append (consecutive, at least one), with its summary after them.
public struct LogAppend: Sendable {
    public var id: UUID
    public var entries: [LogEntry]
    public var summary: DocumentSummary

    public init(id: UUID, entries: [LogEntry], summary: DocumentSummary) {
        self.id = id
        self.entries = entries
        self.summary = summary
    }
}

extension DocumentStore {
    public var concurrentAppends: Int { 1 }

    /// Appends one document's entries alone (tests and tools; the server goes through
    /// ``CommitQueue``).
    public func append(_ entries: [LogEntry], to id: UUID, summary: DocumentSummary) async throws {
        guard !entries.isEmpty else { return }
        for result in try await append([LogAppend(id: id, entries: entries, summary: summary)]) { try result.get() }
    }
}
