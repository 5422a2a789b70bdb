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
    /// The session at ``committed``'s version: where pending operations are redone from when
    /// another server's changes came first.
    private var committedSession: EditingSession
    private(set) var version: Int
    /// The newest version stored as a snapshot; the log holds everything after it.
    private(set) var snapshotVersion: Int
    private let createdAt: Date
    private(set) var updatedAt: Date

    /// The state at the newest durable version: what readers see. Changes still being committed
    /// are not shown, so nobody sees a change that might yet fail.
    private var committed: LiveDocumentState

    /// A change asked for: what to redo if another server's changes come first.
    private struct Operation {
        var step: LogStep
        /// The request's edits (for ``LogStep/perform(gesture:)``).
        var edits: [Edit]
        /// The version the client last saw.
        var baseVersion: Int
        var requestID: String?
    }

    /// What a caller waiting for its commit hears.
    private enum CommitOutcome {
        case durable(LiveDocumentState)
        /// Write the next batch (the caller's own operation is its first).
        case writeNextBatch
    }

    private struct PendingCommit {
        var operation: Operation
        var entry: LogEntry
        /// The document's state once this entry is durable.
        var state: LiveDocumentState
        /// What the entry changed, for live windows.
        var patch: DocumentPatch
        /// Resumed when the entry is durable, or when its caller must write the next batch; nil
        /// for the caller already writing.
        var waiter: CheckedContinuation<CommitOutcome, any Error>?
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
    /// Another server's change was heard while this copy was committing: catch up after.
    private var catchUpWanted = false
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
        self.committedSession = session
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
        if baseVersion > version {
            // The client saw a newer version, through another server sharing the store.
            await catchUp(to: baseVersion)
            try checkOpen()
            if let requestID, recentRequestIDs.contains(requestID) { return try state() }
        }
        guard baseVersion <= version else {
            throw LiveDocumentError.conflict(
                currentVersion: version, reason: "the document is at version \(version), older than \(baseVersion).")
        }
        guard !edits.isEmpty else { return workingState }
        return try await submit(
            Operation(step: .perform(gesture: gesture), edits: edits, baseVersion: baseVersion, requestID: requestID))
    }

    /// Undoes the last step of the shared history; unchanged state if there is nothing to undo.
    /// A `requestID` as in ``perform(_:baseVersion:gesture:requestID:)``.
    public func undo(requestID: String? = nil) async throws -> LiveDocumentState {
        try checkOpen()
        if let requestID, recentRequestIDs.contains(requestID) { return try state() }
        return try await submit(Operation(step: .undo, edits: [], baseVersion: version, requestID: requestID))
    }

    /// Redoes the last undone step; unchanged state if there is nothing to redo.
    /// A `requestID` as in ``perform(_:baseVersion:gesture:requestID:)``.
    public func redo(requestID: String? = nil) async throws -> LiveDocumentState {
        try checkOpen()
        if let requestID, recentRequestIDs.contains(requestID) { return try state() }
        return try await submit(Operation(step: .redo, edits: [], baseVersion: version, requestID: requestID))
    }

    /// Applies an operation to the working state as the next version and waits until it is
    /// durable; the state it returns is the one its commit made (which, if another server's
    /// changes came first, is the operation redone on top of them).
    private func submit(_ operation: Operation) async throws -> LiveDocumentState {
        guard var staged = try stage(operation) else { return withBackgroundState(workingState) }
        if isCommitting {
            let outcome = try await withCheckedThrowingContinuation { waiter in
                staged.waiter = waiter
                pending.append(staged)
            }
            if case .durable(let state) = outcome { return withBackgroundState(state) }
        } else {
            pending.append(staged)
            isCommitting = true
        }
        return withBackgroundState(try await writePendingBatch())
    }

    /// Applies an operation to ``session`` as the next version. Nil if it changes nothing (an
    /// undo with nothing to undo).
    private func stage(_ operation: Operation) throws -> PendingCommit? {
        let firstNewID = session.document.nextEmojiID
        let applied: [Edit]
        do {
            switch operation.step {
            case .perform(let gesture):
                try session.perform(operation.edits, gesture: gesture)
                applied = operation.edits
            case .undo:
                guard let edits = try session.undo() else { return nil }
                applied = edits
            case .redo:
                guard let edits = try session.redo() else { return nil }
                applied = edits
            case .unrecorded:
                return nil
            }
        } catch let error as EmojiArtError
            where operation.baseVersion < version && (error.code == .unknownEmoji || error.code == .outOfRange)
        {
            // Its emojis were deleted or moved by a change the client hadn't seen.
            throw LiveDocumentError.conflict(currentVersion: version, reason: error.description)
        }
        version += 1
        updatedAt = now()
        let entry = LogEntry(
            version: version, edits: applied, date: updatedAt, step: operation.step, requestID: operation.requestID)
        return PendingCommit(
            operation: operation, entry: entry, state: workingState,
            patch: DocumentPatch(edits: applied, firstNewID: firstNewID, after: session.document), waiter: nil)
    }

    /// A state with the background state as it is now (after the commit that produced it).
    private func withBackgroundState(_ state: LiveDocumentState) -> LiveDocumentState {
        var state = state
        state.backgroundState = backgroundState
        return state
    }

    /// Writes every pending entry in one transaction, then hands the next batch (if any) to the
    /// first caller waiting in it, so no caller waits for more than two batches. Returns the
    /// durable state of the writer's own operation (the pending one without a waiter).
    ///
    /// If another server sharing the store wrote first, its entries are applied and every
    /// pending operation is redone on top of them, in order, and written again; an operation
    /// that no longer applies fails alone with a conflict.
    private func writePendingBatch() async throws -> LiveDocumentState {
        while true {
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
            } catch StoreError.versionConflict where closedReason == nil {
                pending = batch + pending
                switch try await rebaseOnStore() {
                case .stillPending:
                    continue
                case .done(let state):
                    handOverOrFinish()
                    return state
                case .failed(let error):
                    handOverOrFinish()
                    throw error
                }
            } catch {
                let failure: LiveDocumentError =
                    switch error {
                    case let error as LiveDocumentError: error
                    case StoreError.notFound: .deleted
                    default: .storeFailed(String(describing: error))
                    }
                fail(batch + pending, with: failure)
                throw failure
            }
            committed = last
            if pending.isEmpty {
                committedSession = session
            } else {
                for commit in batch { try? committedSession.mirror(commit.entry) }
            }
            for commit in batch {
                publish(
                    LiveChange(
                        version: commit.entry.version, patch: commit.patch,
                        undoActionName: commit.state.undoActionName, redoActionName: commit.state.redoActionName,
                        updatedAt: commit.state.updatedAt, requestID: commit.entry.requestID))
            }
            refreshBackground()
            var own = last
            for commit in batch {
                if let waiter = commit.waiter {
                    waiter.resume(returning: .durable(commit.state))
                } else {
                    own = commit.state
                }
            }
            handOverOrFinish()
            return own
        }
    }

    /// Gives the next batch to the first caller waiting in it, or ends the commit.
    private func handOverOrFinish() {
        if let next = pending.first?.waiter {
            pending[0].waiter = nil
            next.resume(returning: .writeNextBatch)
        } else {
            isCommitting = false
            if catchUpWanted {
                catchUpWanted = false
                Task { await self.catchUp() }
            }
        }
    }

    /// Closes this copy after a failed write: every pending caller hears `failure`.
    private func fail(_ commits: [PendingCommit], with failure: LiveDocumentError) {
        closedReason = closedReason ?? failure
        endSubscriptions(with: failure == .deleted ? .deleted : .closed)
        isCommitting = false
        pending = []
        for commit in commits { commit.waiter?.resume(throwing: failure) }
    }

    /// After a version conflict: reads what other servers wrote since the committed version,
    /// applies it, and redoes every pending operation on top. Returns the writer's own
    /// operation's error if it no longer applies (the others' callers hear theirs directly).
    private func rebaseOnStore() async throws -> WriterAfterRebase {
        let theirs: [LogEntry]?
        do {
            theirs = try await store.logEntries(of: id, after: committed.version)
        } catch {
            let failure = LiveDocumentError.storeFailed(String(describing: error))
            fail(pending, with: failure)
            throw failure
        }
        // From here to the end nothing suspends: operations arriving meanwhile are in `pending`.
        guard let theirs, closedReason == nil else {
            // Folded into a newer snapshot: callers retry on a fresh copy.
            fail(pending, with: .unloaded)
            throw LiveDocumentError.unloaded
        }
        let operations = pending
        pending = []
        session = committedSession
        version = committed.version
        updatedAt = committed.updatedAt
        for entry in theirs {
            guard entry.version == version + 1, (try? replay(entry)) != nil else {
                fail(operations, with: .unloaded)
                throw LiveDocumentError.unloaded
            }
        }
        var writer = WriterAfterRebase.stillPending
        for operation in operations {
            let outcome: Result<PendingCommit?, LiveDocumentError>
            if let requestID = operation.operation.requestID, recentRequestIDs.contains(requestID) {
                outcome = .success(nil)  // the same request, resent to the other server, is in
            } else {
                do {
                    outcome = .success(try stage(operation.operation))
                } catch let error as LiveDocumentError {
                    outcome = .failure(error)
                } catch {
                    outcome = .failure(
                        .conflict(currentVersion: version, reason: "another server's change came first: \(error)"))
                }
            }
            switch outcome {
            case .success(var staged?):
                staged.waiter = operation.waiter
                pending.append(staged)
            case .success(nil):
                // Nothing left to do: already in, or an undo with nothing left to undo.
                if let waiter = operation.waiter {
                    waiter.resume(returning: .durable(committed))
                } else {
                    writer = .done(committed)
                }
            case .failure(let error):
                if let waiter = operation.waiter {
                    waiter.resume(throwing: error)
                } else {
                    writer = .failed(error)
                }
            }
        }
        return writer
    }

    /// What became of the writer's own operation in a rebase.
    private enum WriterAfterRebase {
        case stillPending
        case done(LiveDocumentState)
        case failed(LiveDocumentError)
    }

    // MARK: Changes made by other servers

    /// Applies what other servers sharing the store appended after this copy's version, and
    /// sends it to this copy's windows. Each entry is replayed as what it was — an edit, an
    /// undo, a redo — so the undo history stays the same on every server; where this copy's
    /// history cannot account for an entry, the edits are applied and the history emptied.
    /// While a commit of this copy's is under way, this waits for it (a commit that finds it
    /// was behind catches up itself). If the entries are gone (folded into a newer snapshot),
    /// the copy is closed instead and its windows reconnect to a fresh one.
    public func catchUp(to notifiedVersion: Int? = nil) async {
        guard closedReason == nil else { return }
        if let notifiedVersion, notifiedVersion <= version { return }
        guard !isCommitting, pending.isEmpty else {
            catchUpWanted = true
            return
        }
        var entries: [LogEntry]?
        while true {
            let base = version
            do {
                entries = try await store.logEntries(of: id, after: base)
            } catch {
                return  // the store is unreachable; the next notification or resync tries again
            }
            guard closedReason == nil else { return }
            if version == base, !isCommitting, pending.isEmpty { break }
            // This copy changed while the store was read: read again once its commit is done.
            if isCommitting || !pending.isEmpty {
                catchUpWanted = true
                return
            }
        }
        guard let entries else {
            close(reason: .unloaded)
            return
        }
        for entry in entries {
            guard entry.version == version + 1, (try? replay(entry)) != nil else {
                close(reason: .unloaded)
                return
            }
        }
        if !entries.isEmpty { refreshBackground() }
    }

    /// Applies another server's entry to the committed state (``session`` must be at it).
    private func replay(_ entry: LogEntry) throws {
        let firstNewID = session.document.nextEmojiID
        try session.mirror(entry)
        committedSession = session
        version = entry.version
        updatedAt = max(updatedAt, entry.date)
        committed = workingState
        publish(
            LiveChange(
                version: entry.version,
                patch: DocumentPatch(edits: entry.edits, firstNewID: firstNewID, after: session.document),
                undoActionName: committed.undoActionName, redoActionName: committed.redoActionName,
                updatedAt: entry.date, requestID: entry.requestID))
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

extension EditingSession {
    /// Applies a log entry as what it was — an edit, an undo, a redo — so this history stays
    /// the one the entry's server had; where it cannot (this history never saw the step undone),
    /// the edits are applied and the history emptied.
    mutating func mirror(_ entry: LogEntry) throws {
        var trial = self
        let mirrored: Bool
        switch entry.step {
        case .perform(let gesture): mirrored = (try? trial.perform(entry.edits, gesture: gesture)) != nil
        case .undo: mirrored = (try? trial.undo()) == entry.edits
        case .redo: mirrored = (try? trial.redo()) == entry.edits
        case .unrecorded: mirrored = false
        }
        if mirrored {
            self = trial
        } else {
            try applyOutsideHistory(entry.edits)
        }
    }
}
