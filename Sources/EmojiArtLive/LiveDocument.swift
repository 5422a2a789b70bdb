import EmojiArtKit
import EmojiArtStore
import Foundation

/// One open document: the single writer of its state and undo history, shared by every window
/// and request that uses it.
///
/// Changes are applied in the order they arrive, then acknowledged only once they are committed
/// to the store. Commits are grouped: while one batch is being written, later changes queue up
/// and go in the next transaction, so a busy document needs far fewer commits than changes.
public actor LiveDocument {
    public nonisolated let id: UUID
    private let store: any DocumentStore
    private let images: BackgroundImages?

    /// The background image's state, for the committed background.
    private var backgroundState: BackgroundState = .none
    /// The background ``backgroundState`` is about; nil until the first refresh.
    private var backgroundSource: Background?
    /// Identifies the current fetch: a result carrying another token was superseded.
    private var backgroundToken = UUID()
    private var backgroundTask: Task<Void, Never>?
    private let now: @Sendable () -> Date

    private var session: EditingSession
    private(set) var version: Int
    /// The newest version stored as a snapshot; the log holds everything after it.
    private(set) var snapshotVersion: Int
    private let createdAt: Date
    private(set) var updatedAt: Date

    /// The state at the newest durable version: what readers see. Changes still being committed
    /// are not shown, so nobody sees a change that might yet fail.
    private var committed: LiveDocumentState

    private struct PendingCommit {
        var entry: LogEntry
        /// The document's state once this entry is durable.
        var state: LiveDocumentState
        /// Resumed with `false` when the entry is durable, `true` when its caller must write the
        /// next batch; nil for the caller already writing.
        var waiter: CheckedContinuation<Bool, any Error>?
    }

    private var pending: [PendingCommit] = []
    private var isCommitting = false
    /// Set when a commit failed or the document was unloaded: the in-memory state can no longer
    /// be trusted, so every later call fails and the library opens a fresh copy from the store.
    private var closedReason: LiveDocumentError?

    init(
        stored: StoredDocument, store: any DocumentStore, images: BackgroundImages? = nil, undoLimit: Int,
        now: @escaping @Sendable () -> Date
    ) {
        self.id = stored.id
        self.store = store
        self.images = images
        self.now = now
        self.session = EditingSession(document: stored.document, undoLimit: undoLimit)
        self.version = stored.version
        self.snapshotVersion = stored.version
        self.createdAt = stored.createdAt
        self.updatedAt = stored.updatedAt
        self.committed = LiveDocumentState(
            id: stored.id, document: stored.document, version: stored.version, undoActionName: nil,
            redoActionName: nil, createdAt: stored.createdAt, updatedAt: stored.updatedAt)
    }

    /// The document at its newest durable version, with what undo and redo would do.
    public func state() throws -> LiveDocumentState {
        try checkOpen()
        var state = committed
        state.backgroundState = backgroundState
        return state
    }

    /// Brings the background state up to date with the committed background: starts fetching a
    /// URL (or checking embedded bytes), superseding any fetch in flight — whose late result,
    /// success or failure, is then ignored.
    func refreshBackground() {
        let background = committed.document.background
        guard background != backgroundSource else { return }
        backgroundSource = background
        backgroundTask?.cancel()
        backgroundTask = nil
        let token = UUID()
        backgroundToken = token
        guard let images else {
            backgroundState = .none
            return
        }
        switch background {
        case .none:
            backgroundState = .none
        case .url(let documentURL):
            let url = ImageAddress.unwrapped(documentURL)
            backgroundState = .fetching(url: url)
            backgroundTask = Task {
                let result = await images.image(for: url)
                self.finishBackground(token: token, url: url, result: result)
            }
        case .image(let data, _):
            backgroundState = .fetching(url: nil)
            backgroundTask = Task {
                let result = await images.store(data)
                self.finishBackground(token: token, url: nil, result: result)
            }
        }
    }

    private func finishBackground(token: UUID, url: URL?, result: Result<StoredImage, BackgroundImageError>) {
        guard token == backgroundToken else { return }  // superseded by a newer background
        backgroundTask = nil
        switch result {
        case .success(let image):
            backgroundState = .found(imageID: image.id, width: image.width, height: image.height)
        case .failure(let error):
            let reason =
                url.map { "Couldn't load image from \($0.absoluteString): \(error.reason)" }
                ?? "Couldn't use the embedded image: \(error.reason)"
            backgroundState = .failed(url: url, reason: reason)
        }
    }

    /// The in-memory state, including changes still being committed.
    private var workingState: LiveDocumentState {
        LiveDocumentState(
            id: id, document: session.document, version: version, undoActionName: session.history.undoActionName,
            redoActionName: session.history.redoActionName, createdAt: createdAt, updatedAt: updatedAt)
    }

    /// Applies edits atomically as one undo step and returns the state once they are durable.
    ///
    /// - Parameters:
    ///   - baseVersion: the version the client last saw. Older is fine if the edits still apply
    ///     (they are relative intents); if they no longer do, or the base is newer than the
    ///     document, the result is ``LiveDocumentError/conflict(currentVersion:reason:)``.
    ///   - gesture: edits in a row with the same key form one undo step.
    public func perform(_ edits: [Edit], baseVersion: Int, gesture: String? = nil) async throws -> LiveDocumentState {
        try checkOpen()
        guard baseVersion <= version else {
            throw LiveDocumentError.conflict(
                currentVersion: version, reason: "the document is at version \(version), older than \(baseVersion).")
        }
        guard !edits.isEmpty else { return workingState }
        do {
            try session.perform(edits, gesture: gesture)
        } catch let error as EmojiArtError
            where baseVersion < version && (error.code == .unknownEmoji || error.code == .outOfRange)
        {
            // Its emojis were deleted or moved by a change the client hadn't seen.
            throw LiveDocumentError.conflict(currentVersion: version, reason: error.description)
        }
        return try await commit(edits)
    }

    /// Undoes the last step of the shared history; unchanged state if there is nothing to undo.
    public func undo() async throws -> LiveDocumentState {
        try checkOpen()
        guard let applied = try session.undo() else { return workingState }
        return try await commit(applied)
    }

    /// Redoes the last undone step; unchanged state if there is nothing to redo.
    public func redo() async throws -> LiveDocumentState {
        try checkOpen()
        guard let applied = try session.redo() else { return workingState }
        return try await commit(applied)
    }

    /// Records applied edits as the next version and waits until they are durable.
    private func commit(_ applied: [Edit]) async throws -> LiveDocumentState {
        version += 1
        updatedAt = now()
        let result = workingState
        let entry = LogEntry(version: version, edits: applied, date: updatedAt)
        if isCommitting {
            let mustWriteNextBatch = try await withCheckedThrowingContinuation { waiter in
                pending.append(PendingCommit(entry: entry, state: result, waiter: waiter))
            }
            guard mustWriteNextBatch else { return withBackgroundState(result) }
        } else {
            pending.append(PendingCommit(entry: entry, state: result, waiter: nil))
            isCommitting = true
        }
        try await writePendingBatch()
        return withBackgroundState(result)
    }

    /// A state with the background state as it is now (after the commit that produced it).
    private func withBackgroundState(_ state: LiveDocumentState) -> LiveDocumentState {
        var state = state
        state.backgroundState = backgroundState
        return state
    }

    /// Writes every pending entry in one transaction, then hands the next batch (if any) to the
    /// first caller waiting in it, so no caller waits for more than two batches.
    private func writePendingBatch() async throws {
        let batch = pending
        pending = []
        let last = batch.last?.state ?? workingState
        let summary = DocumentSummary(
            id: id, title: last.document.title, emojiCount: last.document.emojis.count, version: last.version,
            createdAt: createdAt, updatedAt: last.updatedAt)
        do {
            // A document closed meanwhile (deleted) takes no more writes.
            if let closedReason { throw closedReason }
            try await store.append(batch.map(\.entry), to: id, summary: summary)
        } catch {
            let failure: LiveDocumentError =
                switch error {
                case let error as LiveDocumentError: error
                case StoreError.notFound: .deleted
                default: .storeFailed(String(describing: error))
                }
            closedReason = closedReason ?? failure
            isCommitting = false
            for commit in batch + pending { commit.waiter?.resume(throwing: failure) }
            pending = []
            throw failure
        }
        committed = last
        refreshBackground()
        for commit in batch { commit.waiter?.resume(returning: false) }
        if let next = pending.first?.waiter {
            pending[0].waiter = nil
            next.resume(returning: true)
        } else {
            isCommitting = false
        }
    }

    /// A closed copy turns every caller away: with `.deleted` if its document is gone, else with
    /// `.unloaded`, so the library retries on a fresh copy loaded from the store. (Only the
    /// callers whose own commit failed hear `.storeFailed`.)
    private func checkOpen() throws {
        guard let closedReason else { return }
        throw closedReason == .deleted ? LiveDocumentError.deleted : LiveDocumentError.unloaded
    }

    /// Whether every acknowledged change is in a snapshot and nothing is being written.
    var isSettled: Bool { !isCommitting && pending.isEmpty && snapshotVersion == version }

    /// Folds the log into a new snapshot if there are changes since the last one and nothing is
    /// being committed. Returns whether it wrote one.
    @discardableResult
    func compact() async throws -> Bool {
        guard closedReason == nil, !isCommitting, pending.isEmpty, version > snapshotVersion else { return false }
        let snapshot = StoredDocument(
            id: id, document: committed.document, version: committed.version, createdAt: createdAt,
            updatedAt: committed.updatedAt)
        try await store.saveSnapshot(snapshot)
        snapshotVersion = max(snapshotVersion, snapshot.version)
        return true
    }

    /// Stops serving this copy if it is settled; later calls fail with ``LiveDocumentError/unloaded``.
    func closeIfSettled() -> Bool {
        guard isSettled else { return false }
        closedReason = .unloaded
        backgroundTask?.cancel()
        return true
    }

    /// Stops serving this copy at once (the document was deleted).
    func close(reason: LiveDocumentError) {
        closedReason = reason
        backgroundTask?.cancel()
    }
}

/// A live document's state at one version.
public struct LiveDocumentState: Sendable, Equatable {
    public var id: UUID
    public var document: EmojiArtDocument
    public var version: Int
    public var undoActionName: String?
    public var redoActionName: String?
    public var createdAt: Date
    public var updatedAt: Date
    /// Where the server is in getting the background image (for the committed background).
    public var backgroundState: BackgroundState = .none
}

/// Why a live document refused a request.
public enum LiveDocumentError: Error, Equatable, CustomStringConvertible {
    /// The edits no longer apply to the document as it is now; reload and retry.
    case conflict(currentVersion: Int, reason: String)
    /// This copy was unloaded; the library retries on a fresh copy.
    case unloaded
    /// This copy was closed because its document was deleted.
    case deleted
    /// The store refused a commit; nothing after the last acknowledged change was kept.
    case storeFailed(String)

    public var description: String {
        switch self {
        case .conflict(let version, let reason):
            "the document changed since your last view (now version \(version)) and the change no longer applies: \(reason) Reload and try again."
        case .unloaded: "the document was closed; try again."
        case .deleted: "the document was deleted."
        case .storeFailed(let reason): "the change could not be saved (\(reason)); it was not kept."
        }
    }
}
