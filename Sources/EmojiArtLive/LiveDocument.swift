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
        /// What the entry changed, for live windows.
        var patch: DocumentPatch
        /// The live window request that made it, if any.
        var requestID: String?
        /// Resumed with `false` when the entry is durable, `true` when its caller must write the
        /// next batch; nil for the caller already writing.
        var waiter: CheckedContinuation<Bool, any Error>?
    }

    private var pending: [PendingCommit] = []
    /// The windows following this document live, each with its event stream.
    private var subscribers: [UUID: AsyncStream<LiveEvent>.Continuation] = [:]
    /// The latest versions' changes, oldest first, for windows that reconnect a little behind.
    private var recentChanges: [LiveChange] = []
    /// The window requests behind ``recentChanges``, by id, so a request resent after a dropped
    /// connection is acknowledged rather than applied twice.
    private var recentRequestIDs: Set<String> = []
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
            setBackgroundState(.none)
            return
        }
        switch background {
        case .none:
            setBackgroundState(.none)
        case .url(let documentURL):
            let url = ImageAddress.unwrapped(documentURL)
            setBackgroundState(.fetching(url: url))
            backgroundTask = Task {
                let result = await images.image(for: url)
                self.finishBackground(token: token, url: url, result: result)
            }
        case .image(let data, _):
            setBackgroundState(.fetching(url: nil))
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
            setBackgroundState(.found(imageID: image.id, width: image.width, height: image.height))
        case .failure(let error):
            let reason =
                url.map { "Couldn't load image from \($0.absoluteString): \(error.reason)" }
                ?? "Couldn't use the embedded image: \(error.reason)"
            setBackgroundState(.failed(url: url, reason: reason))
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
    ///   - requestID: a live window's id for the request. A request whose id made one of the
    ///     recent changes is not applied again: the committed state is returned.
    public func perform(
        _ edits: [Edit], baseVersion: Int, gesture: String? = nil, requestID: String? = nil
    ) async throws -> LiveDocumentState {
        try checkOpen()
        if let requestID, recentRequestIDs.contains(requestID) { return try state() }
        guard baseVersion <= version else {
            throw LiveDocumentError.conflict(
                currentVersion: version, reason: "the document is at version \(version), older than \(baseVersion).")
        }
        guard !edits.isEmpty else { return workingState }
        let firstNewID = session.document.nextEmojiID
        do {
            try session.perform(edits, gesture: gesture)
        } catch let error as EmojiArtError
            where baseVersion < version && (error.code == .unknownEmoji || error.code == .outOfRange)
        {
            // Its emojis were deleted or moved by a change the client hadn't seen.
            throw LiveDocumentError.conflict(currentVersion: version, reason: error.description)
        }
        return try await commit(edits, firstNewID: firstNewID, requestID: requestID)
    }

    /// Undoes the last step of the shared history; unchanged state if there is nothing to undo.
    /// A `requestID` as in ``perform(_:baseVersion:gesture:requestID:)``.
    public func undo(requestID: String? = nil) async throws -> LiveDocumentState {
        try checkOpen()
        if let requestID, recentRequestIDs.contains(requestID) { return try state() }
        let firstNewID = session.document.nextEmojiID
        guard let applied = try session.undo() else { return workingState }
        return try await commit(applied, firstNewID: firstNewID, requestID: requestID)
    }

    /// Redoes the last undone step; unchanged state if there is nothing to redo.
    /// A `requestID` as in ``perform(_:baseVersion:gesture:requestID:)``.
    public func redo(requestID: String? = nil) async throws -> LiveDocumentState {
        try checkOpen()
        if let requestID, recentRequestIDs.contains(requestID) { return try state() }
        let firstNewID = session.document.nextEmojiID
        guard let applied = try session.redo() else { return workingState }
        return try await commit(applied, firstNewID: firstNewID, requestID: requestID)
    }

    /// Records applied edits as the next version and waits until they are durable.
    private func commit(_ applied: [Edit], firstNewID: Int, requestID: String?) async throws -> LiveDocumentState {
        version += 1
        updatedAt = now()
        let result = workingState
        let entry = LogEntry(version: version, edits: applied, date: updatedAt)
        let patch = DocumentPatch(edits: applied, firstNewID: firstNewID, after: session.document)
        if isCommitting {
            let mustWriteNextBatch = try await withCheckedThrowingContinuation { waiter in
                pending.append(
                    PendingCommit(entry: entry, state: result, patch: patch, requestID: requestID, waiter: waiter))
            }
            guard mustWriteNextBatch else { return withBackgroundState(result) }
        } else {
            pending.append(
                PendingCommit(entry: entry, state: result, patch: patch, requestID: requestID, waiter: nil))
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
            endSubscriptions(with: failure == .deleted ? .deleted : .closed)
            isCommitting = false
            for commit in batch + pending { commit.waiter?.resume(throwing: failure) }
            pending = []
            throw failure
        }
        committed = last
        for commit in batch {
            publish(
                LiveChange(
                    version: commit.entry.version, patch: commit.patch, undoActionName: commit.state.undoActionName,
                    redoActionName: commit.state.redoActionName, updatedAt: commit.state.updatedAt,
                    requestID: commit.requestID))
        }
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
        guard isSettled, subscribers.isEmpty else { return false }
        closedReason = .unloaded
        backgroundTask?.cancel()
        return true
    }

    /// Stops serving this copy at once (the document was deleted).
    func close(reason: LiveDocumentError) {
        closedReason = reason
        backgroundTask?.cancel()
        endSubscriptions(with: reason == .deleted ? .deleted : .closed)
    }

    // MARK: Live windows

    /// How many versions of changes are kept for windows that reconnect behind.
    public static let recentChangeLimit = 1_000
    /// How many events may wait for a slow window before it is dropped (it reconnects).
    public static let subscriberBufferLimit = 1_024

    /// Follows the document live. The subscription's ``LiveSubscription/state`` is the committed
    /// state now; ``LiveSubscription/missed`` holds the changes after `version` if the window
    /// has that version and they are still kept (else nil: take the state as a snapshot). Every
    /// later change, background state and the deletion of the document arrive as events, in
    /// order. The stream ends after `.deleted` or `.closed`, or without either if the window
    /// fell more than ``subscriberBufferLimit`` events behind.
    public func subscribe(since version: Int? = nil) throws -> LiveSubscription {
        try checkOpen()
        let (events, continuation) = AsyncStream.makeStream(
            of: LiveEvent.self, bufferingPolicy: .bufferingOldest(LiveDocument.subscriberBufferLimit))
        let subscriberID = UUID()
        subscribers[subscriberID] = continuation
        continuation.onTermination = { [weak self] _ in
            Task { await self?.unsubscribe(subscriberID) }
        }
        var missed: [LiveChange]?
        if let version, version <= committed.version {
            if version == committed.version {
                missed = []
            } else if let first = recentChanges.first, first.version <= version + 1 {
                missed = Array(recentChanges.drop { $0.version <= version })
            }
        }
        return LiveSubscription(state: try state(), missed: missed, events: events, continuation: continuation)
    }

    /// How many windows follow the document (for tests and metrics).
    public var subscriberCount: Int { subscribers.count }

    private func unsubscribe(_ subscriberID: UUID) {
        subscribers[subscriberID] = nil
    }

    private func publish(_ change: LiveChange) {
        recentChanges.append(change)
        if let requestID = change.requestID { recentRequestIDs.insert(requestID) }
        if recentChanges.count > LiveDocument.recentChangeLimit * 2 {
            let forgotten = recentChanges.count - LiveDocument.recentChangeLimit
            for old in recentChanges[..<forgotten] {
                if let requestID = old.requestID { recentRequestIDs.remove(requestID) }
            }
            recentChanges.removeFirst(forgotten)
        }
        send(.change(change))
    }

    private func setBackgroundState(_ state: BackgroundState) {
        guard state != backgroundState else { return }
        backgroundState = state
        send(.background(state))
    }

    private func send(_ event: LiveEvent) {
        for (subscriberID, continuation) in subscribers {
            if case .dropped = continuation.yield(event) {
                // Too far behind: stop buffering for it; it reconnects and catches up.
                subscribers[subscriberID] = nil
                continuation.finish()
            }
        }
    }

    private func endSubscriptions(with event: LiveEvent) {
        let ended = subscribers.values
        subscribers = [:]
        for continuation in ended {
            continuation.yield(event)
            continuation.finish()
        }
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

/// One committed version, as live windows receive it.
public struct LiveChange: Sendable, Equatable {
    public var version: Int
    public var patch: DocumentPatch
    public var undoActionName: String?
    public var redoActionName: String?
    public var updatedAt: Date
    /// The live window request that made it (nil for other callers), kept so that a request
    /// resent after a dropped connection is recognised.
    public var requestID: String?
}

/// What a live window hears about its document, in order.
public enum LiveEvent: Sendable, Equatable {
    /// A version was committed.
    case change(LiveChange)
    /// The background image's state changed.
    case background(BackgroundState)
    /// The document was deleted; the stream ends.
    case deleted
    /// This copy of the document closed (a failed commit); the stream ends and the window
    /// reconnects to a fresh copy.
    case closed
    /// A reply to one of this window's own requests, put in the stream by its connection so
    /// it arrives after the change it acknowledges.
    case reply(LiveReply)
}

/// The answer to a window's request.
public enum LiveReply: Sendable, Equatable {
    /// Applied and committed as `version` (or, with nothing to undo or redo, unchanged).
    case acknowledged(requestID: String, version: Int)
    /// Refused; nothing changed. `code` is the API's error code.
    case refused(requestID: String, code: String, message: String, currentVersion: Int?)
}

/// A window following a live document: see ``LiveDocument/subscribe(since:)``.
public struct LiveSubscription: Sendable {
    public var state: LiveDocumentState
    public var missed: [LiveChange]?
    public var events: AsyncStream<LiveEvent>
    /// For the connection's own replies (``LiveEvent/reply(_:)``).
    public var continuation: AsyncStream<LiveEvent>.Continuation
}
