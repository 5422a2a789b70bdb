import EmojiArtKit
import EmojiArtStore
import Foundation
import Logging

/// All documents: opens each at most once as a ``LiveDocument``, creates, imports, duplicates
/// and deletes them, and on a schedule compacts and unloads the idle ones.
public actor DocumentLibrary {
    /// Tunables, with the defaults the server uses.
    public struct Settings: Sendable {
        /// How many undo steps each open document keeps.
        public var undoLimit = 1000
        /// How many of the newest log entries stay after a snapshot: a copy opened afresh (after
        /// a restart, after unloading, on another server) replays them, so it has their undo
        /// steps and request ids back (PRODUCT.md: the log is the truth). Two undo limits' worth,
        /// so runs of undos in the tail still find the steps they undo.
        public var retainedLog = 2_000
        /// Fold the log into a new snapshot once this many entries beyond ``retainedLog`` have
        /// gathered (and, on shutdown, whatever is beyond it).
        public var compactionBatch = 1_000
        /// Unload a settled document after this long without a request.
        public var idleTimeout: TimeInterval = 600
        /// Keep a checkpoint every this many versions, so reading any past version folds at
        /// most this many log entries.
        public var checkpointInterval = HistoryReader.defaultCheckpointInterval
        /// Thin history older than this many days to one version a day (nil: keep it all).
        public var historyDays: Int?

        public init() {}
    }

    public nonisolated let store: any DocumentStore
    /// The one commit queue every open document writes through.
    public nonisolated let commits: CommitQueue
    /// Fetches and keeps background images; nil leaves every background state `none`.
    public nonisolated let images: BackgroundImages?
    /// Reads documents' past versions.
    public nonisolated let history: HistoryReader
    private let settings: Settings
    private let now: @Sendable () -> Date
    private let logger: Logger

    private var open: [UUID: LiveDocument] = [:]
    private var lastUsed: [UUID: Date] = [:]
    private var loading: [UUID: Task<LiveDocument?, any Error>] = [:]
    /// The newest version another server announced for a document while it was loading: the
    /// load may have read the store before that change, so the copy catches up once open.
    private var announcedWhileLoading: [UUID: Int] = [:]
    /// The newest checkpoint of each open document, as far as this server knows.
    private var checkpointed: [UUID: Int] = [:]
    /// Documents being or recently deleted, with when: a load that read one before its delete
    /// committed must not bring it back. Forgotten after a minute.
    private var deleted: [UUID: Date] = [:]

    public init(
        store: any DocumentStore, images: BackgroundImages? = nil, settings: Settings = Settings(),
        logger: Logger = Logger(label: "emojiart.library"), now: @escaping @Sendable () -> Date = Date.init
    ) {
        self.store = store
        self.commits = CommitQueue(store: store)
        self.history = HistoryReader(store: store, checkpointInterval: settings.checkpointInterval)
        self.images = images
        self.settings = settings
        self.logger = logger
        self.now = now
    }

    /// Runs `body` on the open document, opening it if needed and retrying on a fresh copy if
    /// the one it got was unloaded meanwhile — or fell behind another server sharing the store —
    /// up to ``attempts`` times, waiting a little longer (and a random part) each time so
    /// servers racing for one document take turns. Nil if there is no such document.
    public func withDocument<T: Sendable>(
        _ id: UUID, _ body: @Sendable (LiveDocument) async throws -> T
    ) async throws -> T? {
        for attempt in 0..<Self.attempts {
            guard let document = try await document(id) else { return nil }
            do {
                return try await body(document)
            } catch let error as LiveDocumentError {
                switch error {
                case .unloaded where attempt < Self.attempts - 1:
                    forget(id, document)
                    if attempt > 0 {
                        try await Task.sleep(for: .milliseconds(Int.random(in: 1...10) * attempt))
                    }
                case .storeFailed, .storeUnavailable:
                    forget(id, document)
                    throw error
                case .deleted:
                    return nil
                default:
                    throw error
                }
            }
        }
        return nil
    }

    /// How often ``withDocument(_:_:)`` tries.
    static let attempts = 8

    /// Hears a change another server (or this one) committed to a shared store: open copies
    /// catch up, deleted documents close.
    public func storeChanged(_ change: StoreChange) async {
        switch change {
        case .appended(let id, let version):
            guard let document = open[id] else {
                if loading[id] != nil { announcedWhileLoading[id] = max(announcedWhileLoading[id] ?? 0, version) }
                return
            }
            // A copy no window follows falls behind rather than reading the log for every change
            // another server makes: it closes, and its next use opens it afresh.
            if await document.closeIfUnwatched(behind: version) {
                forget(id, document)
            } else {
                await document.catchUp(to: version)
            }
        case .deleted(let id):
            guard let document = open.removeValue(forKey: id) else { return }
            deleted[id] = now()
            lastUsed[id] = nil
            await document.close(reason: .deleted)
        case .resync:
            for id in loading.keys { announcedWhileLoading[id] = .max }  // whatever it missed
            for document in open.values { await document.catchUp() }
        case .palettes, .linkRevoked, .membersChanged, .comments:
            break
        }
    }

    /// The open document with this id, loading it from the store if needed.
    public func document(_ id: UUID) async throws -> LiveDocument? {
        guard deleted[id] == nil else { return nil }
        if let document = open[id] {
            lastUsed[id] = now()
            return document
        }
        if let task = loading[id] {
            let document = try await task.value
            return deleted[id] == nil ? document : nil
        }
        let store = self.store
        let commits = self.commits
        let images = self.images
        let settings = self.settings
        let now = self.now
        // Concurrent requests for a document being loaded share this one load.
        let task = Task<LiveDocument?, any Error> {
            guard let (snapshot, log) = try await store.loadDocument(id: id) else { return nil }
            let replica = try DocumentReplica(snapshot: snapshot, log: log, undoLimit: settings.undoLimit)
            let document = LiveDocument(
                replica: replica, snapshotVersion: snapshot.version, store: store, commits: commits, images: images,
                now: now)
            // Opening a document whose background is a URL starts the fetch (or uses the store).
            await document.refreshBackground()
            return document
        }
        loading[id] = task
        defer {
            loading[id] = nil
            announcedWhileLoading[id] = nil
        }
        let document = try await task.value
        guard let document, deleted[id] == nil else { return nil }
        open[id] = document
        lastUsed[id] = now()
        if let announced = announcedWhileLoading.removeValue(forKey: id) {
            await document.catchUp(to: announced)
        }
        return document
    }

    /// Creates and stores a new document, owned by `owner`, under `id` (a new one unless a
    /// client made it: a document created offline, docs/OFFLINE.md). Throws the store's error
    /// if a document has that id already, and ``StoreError/notFound(_:)`` — storing nothing — for
    /// the id of a deleted document (a late repeat doesn't bring it back): the store remembers
    /// them, and this library the ones it is deleting now.
    public func create(_ document: EmojiArtDocument, id: UUID = UUID(), owner: UUID = LocalUser.id) async throws
        -> LiveDocumentState
    {
        guard deleted[id] == nil else { throw StoreError.notFound(id) }
        let date = now()
        let record = StoredDocument(id: id, document: document, version: 0, createdAt: date, updatedAt: date)
        try await store.createDocument(record, owner: owner)
        guard let live = try await self.document(record.id) else { throw StoreError.notFound(record.id) }
        return try await live.state()
    }

    /// Copies a document as it is now into a new one, owned by `owner`, with its own (empty)
    /// history.
    public func duplicate(_ id: UUID, title: String?, owner: UUID = LocalUser.id) async throws -> LiveDocumentState? {
        guard let source = try await withDocument(id, { try await $0.state() }) else { return nil }
        var copy = source.document
        try copy.apply(.retitle(title ?? DocumentLibrary.copyTitle(for: copy.title)))
        return try await create(copy, owner: owner)
    }

    /// Deletes a document; windows using it get ``LiveDocumentError/deleted``.
    public func delete(_ id: UUID) async throws -> Bool {
        deleted[id] = now()
        lastUsed[id] = nil
        if let document = open.removeValue(forKey: id) {
            await document.close(reason: .deleted)
        }
        do {
            return try await store.deleteDocument(id: id)
        } catch {
            deleted[id] = nil
            throw error
        }
    }

    /// Folds long logs into snapshots and unloads idle documents. The server calls this every
    /// second; it is cheap when nothing changed.
    public func maintain() async {
        let date = now()
        deleted = deleted.filter { date.timeIntervalSince($0.value) < 60 }
        for (id, document) in open {
            do {
                let (version, snapshotVersion) = await (document.version, document.snapshotVersion)
                if version - snapshotVersion - settings.retainedLog >= settings.compactionBatch {
                    try await document.compact(keepingLog: settings.retainedLog)
                }
                if checkpointed[id] != version - version % settings.checkpointInterval {
                    let written = try await history.writeCheckpoints(of: id, through: version)
                    // Only for the copy still open: one closed meanwhile was forgotten.
                    if open[id] === document { checkpointed[id] = written }
                }
                if let used = lastUsed[id], date.timeIntervalSince(used) >= settings.idleTimeout,
                    await document.closeIfSettled()
                {
                    forget(id, document)
                }
            } catch {
                logger.error("Compacting document \(id) failed: \(error)")
            }
        }
    }

    /// Folds every open document's log beyond the retained tail into a snapshot (on shutdown),
    /// so the next start replays no more than the tail.
    public func compactAll() async {
        for (id, document) in open {
            do {
                try await document.compact(keepingLog: settings.retainedLog)
                try await history.writeCheckpoints(of: id, through: await document.version)
            } catch {
                logger.error("Compacting document \(id) at shutdown failed: \(error)")
            }
        }
    }

    /// How many documents are open (for tests, and `emojiart_live_documents` on `/metrics`).
    public var openCount: Int { open.count }

    private func forget(_ id: UUID, _ document: LiveDocument) {
        if open[id] === document {
            open[id] = nil
            lastUsed[id] = nil
            checkpointed[id] = nil
        }
    }

    // MARK: History

    /// Makes the document equal to its version `version` as one new undoable change named by
    /// `actionName` (given the version's date), which every window sees. The current state,
    /// unchanged, if the document already equals that version; nil if there is no such document.
    ///
    /// - Throws: ``HistoryError/versionUnavailable(_:)`` if that version can't be read.
    public func restore(
        _ id: UUID, to version: Int, author: UUID?, actionName: @escaping @Sendable (Date) -> String
    ) async throws -> LiveDocumentState? {
        let history = self.history
        return try await withDocument(id) { document in
            let current = try await document.state()
            guard version <= current.version, let past = try await history.document(id: id, at: version) else {
                throw HistoryError.versionUnavailable(version)
            }
            guard past.document != current.document else { return current }
            let restored = RestoredVersion(
                version: version, actionName: actionName(past.updatedAt), document: past.document)
            return try await document.perform(
                [.restoreVersion(restored)], baseVersion: current.version, author: author)
        }
    }

    /// Thins every document's history older than ``Settings/historyDays`` (if set) to one
    /// version a day. Returns how many versions it removed.
    @discardableResult
    public func thinHistory() async -> Int {
        guard let days = settings.historyDays else { return 0 }
        let retention = HistoryRetention(days: days, reader: history)
        var removed = 0
        for summary in (try? await store.listDocuments()) ?? [] {
            do {
                removed += try await retention.thin(summary.id, now: now())
            } catch {
                logger.error("Thinning document \(summary.id)'s history failed: \(error)")
            }
        }
        return removed
    }

    static func copyTitle(for title: String) -> String {
        DocumentLimits.clampedTitle(title + " copy")
    }
}
