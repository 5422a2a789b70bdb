import EmojiArtKit
import EmojiArtStore
import Foundation

/// One open document, shared by every window and request that uses it: carries out what its
/// ``DocumentReplica`` decides about the document and its ``DocumentWriter`` about who writes.
///
/// Changes are staged in the order they arrive, then acknowledged only once they are committed
/// to the store. Commits are grouped: while one batch is being written, later changes are
/// staged and go in the next transaction, written by the first of their callers (so no caller
/// waits for more than two batches). Only one task at a time writes or reads the store for the
/// document — "the writer" — so the replica's committed state only changes between its
/// decisions, never during one.
public actor LiveDocument {
    public nonisolated let id: UUID
    private let store: any DocumentStore
    /// Where this copy's batches are written, with every other open document's.
    private let commits: CommitQueue
    private let images: BackgroundImages?
    private let now: @Sendable () -> Date

    private var replica: DocumentReplica
    private var background: BackgroundFetch
    private var backgroundTask: Task<Void, Never>?
    private let windows = Broadcaster<LiveEvent>(policy: .dropAfter(LiveDocument.subscriberBufferLimit))

    /// The newest version stored as a snapshot; the log holds everything after it.
    private(set) var snapshotVersion: Int
    /// Set when a commit failed, the copy fell out of step with the log, or the document was
    /// unloaded or deleted: every later call fails and the library opens a fresh copy.
    private var closedReason: LiveDocumentError?
    /// Whether a window ever followed this copy: such a copy remembers what only it knows (the
    /// requests it refused, for a window that resends one), so it is never closed for falling
    /// behind another server (``closeIfUnwatched(behind:)``), only when idle.
    private var followed = false

    /// Who writes, and who waits for what.
    private var writer = DocumentWriter()

    /// What a caller waiting on its ticket hears.
    private enum Wake {
        case settled(Result<LiveDocumentState, LiveDocumentError>)
        /// Become the writer: write batches until your ticket is settled.
        case write
    }

    /// The continuations of the callers ``writer`` has waiting for their outcomes.
    private var wakes: [DocumentWriter.Waiter: CheckedContinuation<Wake, Never>] = [:]
    /// The continuations of the callers ``writer`` has waiting for it to stop.
    private var idles: [DocumentWriter.Waiter: CheckedContinuation<Void, Never>] = [:]

    init(
        replica: DocumentReplica, snapshotVersion: Int, store: any DocumentStore, commits: CommitQueue,
        images: BackgroundImages? = nil, now: @escaping @Sendable () -> Date
    ) {
        self.id = replica.id
        self.replica = replica
        self.snapshotVersion = snapshotVersion
        self.store = store
        self.commits = commits
        self.images = images
        self.now = now
        self.background = BackgroundFetch(canFetch: images != nil)
    }

    /// The committed version.
    var version: Int { replica.committed.version }
    /// When the committed version was made.
    var updatedAt: Date { replica.committed.updatedAt }

    /// The document at its newest durable version, with what undo and redo would do.
    public func state() throws -> LiveDocumentState {
        try checkOpen()
        return withBackgroundState(replica.committed)
    }

    /// The document at `version` or newer: a copy behind it — the version was committed
    /// through another server whose notice hasn't arrived — reads the store first. Still older
    /// afterwards, the store has no such version yet.
    ///
    /// An idle copy reads the store at once. A copy whose writer is busy reads it after the
    /// writer's batch (sooner if the batch's commit meets the other server's change), so the read
    /// waits for that, for at most ``readWait``: a version that doesn't exist never holds a
    /// reader longer, nor the writer at all.
    public func state(atLeast version: Int) async throws -> LiveDocumentState {
        try checkOpen()
        if version > replica.committed.version {
            await catchUp(to: version)
            let deadline = ContinuousClock.now + Self.readWait
            while version > replica.committed.version, writer.isWriting, closedReason == nil,
                ContinuousClock.now < deadline
            {
                try await Task.sleep(for: .milliseconds(10))
            }
        }
        return try state()
    }

    /// The document as it is if the keyed request `requestID` (``RequestKey``) was committed —
    /// by this copy, or by any server as long as the log holds it — else nil. Throws
    /// ``LiveDocumentError/keyReused`` if another request took its key. For a change that costs
    /// much to prepare (a mosaic): a repeat is answered before it is prepared again.
    public func stateIfCommitted(_ requestID: String) async throws -> LiveDocumentState? {
        try checkOpen()
        guard RequestKey.claim(of: requestID) != nil else { return nil }
        if replica.committedVersion(ofRequest: requestID) != nil { return try state() }
        let asked = DocumentOperation(step: .perform(gesture: nil), baseVersion: 0, requestID: requestID)
        return try await wasCommittedLongAgo(asked) ? try state() : nil
    }

    /// How long ``state(atLeast:)`` waits for a busy writer.
    static let readWait = Duration.seconds(1)

    private func withBackgroundState(_ state: LiveDocumentState) -> LiveDocumentState {
        var state = state
        state.backgroundState = background.state
        return state
    }

    // MARK: Changes

    /// Applies edits atomically as one undo step and returns the state once they are durable.
    ///
    /// - Parameters:
    ///   - baseVersion: the version the client last saw. Older is fine if the edits still apply
    ///     (they are relative intents); if they no longer do, the result is
    ///     ``LiveDocumentError/conflict(currentVersion:reason:)``. Newer (seen through another
    ///     server) makes this copy catch up first; a version the store doesn't have is a conflict.
    ///   - gesture: edits in a row with the same key form one undo step.
    ///   - requestID: a live window's id for the request. A request whose id made one of the
    ///     recent changes — on this server or another, before a restart or after — or is being
    ///     committed now is not applied again: its outcome is the committed state.
    ///   - author: who asks (a user's id), kept in the log for the document's history.
    public func perform(
        _ edits: [Edit], baseVersion: Int, gesture: String? = nil, requestID: String? = nil, author: UUID? = nil
    ) async throws -> LiveDocumentState {
        try await submit(
            DocumentOperation(
                step: .perform(gesture: gesture), edits: edits, baseVersion: baseVersion, requestID: requestID,
                author: author))
    }

    /// Undoes the last step of the shared history. Throws ``LiveDocumentError/nothingToUndo``
    /// if there is nothing to undo. A `requestID` as in ``perform(_:baseVersion:gesture:requestID:)``.
    public func undo(requestID: String? = nil, author: UUID? = nil) async throws -> LiveDocumentState {
        try await submit(
            DocumentOperation(
                step: .undo, baseVersion: replica.committed.version, requestID: requestID, author: author))
    }

    /// Redoes the last undone step. Throws ``LiveDocumentError/nothingToRedo`` if there is
    /// nothing to redo. A `requestID` as in ``perform(_:baseVersion:gesture:requestID:)``.
    public func redo(requestID: String? = nil, author: UUID? = nil) async throws -> LiveDocumentState {
        try await submit(
            DocumentOperation(
                step: .redo, baseVersion: replica.committed.version, requestID: requestID, author: author))
    }

    private func submit(_ operation: DocumentOperation) async throws -> LiveDocumentState {
        if try await wasCommittedLongAgo(operation) { return try state() }
        var caughtUp = false
        while true {
            try checkOpen()
            switch try replica.submit(operation, at: now()) {
            case .staged(let ticket), .joined(let ticket):
                return try await outcome(of: ticket).get()
            case .alreadyApplied, .unchanged:
                return try state()
            case .behind:
                guard !caughtUp else {
                    let version = replica.committed.version
                    throw LiveDocumentError.conflict(
                        currentVersion: version,
                        reason: "the document is at version \(version), older than \(operation.baseVersion).")
                }
                caughtUp = true
                await catchUpNow()
            }
        }
    }

    /// Whether `operation` is a request resent from long ago — made on a version older than the
    /// request ids this copy remembers (a browser back after days offline, its answer lost in a
    /// crash) — that the store's log says was committed: it is not applied again. Asked of the
    /// store only then, so the usual request costs nothing more.
    ///
    /// A keyed request (``RequestKey``) is looked for whatever its base: the first request the
    /// log holds under its key is it (then it was committed) or another (``LiveDocumentError/keyReused``).
    private func wasCommittedLongAgo(_ operation: DocumentOperation) async throws -> Bool {
        guard let requestID = operation.requestID, !replica.knows(request: requestID) else { return false }
        let claim = RequestKey.claim(of: requestID)
        guard claim != nil || replica.mayHaveForgotten(requestsAfter: operation.baseVersion) else { return false }
        let found: (requestID: String, version: Int)?
        do {
            found =
                if let claim {
                    try await store.firstRequest(in: id, claiming: String(claim))
                } else {
                    try await store.version(ofRequest: requestID, in: id, after: operation.baseVersion)
                        .map { (requestID, $0) }
                }
        } catch StoreError.unavailable(let reason) {
            throw LiveDocumentError.storeUnavailable(reason)
        } catch {
            throw LiveDocumentError.storeFailed(String(describing: error))
        }
        guard let found else { return false }
        guard found.requestID == requestID else { throw LiveDocumentError.keyReused }
        // Committed at a version this copy hasn't applied (another server's): the answer includes it.
        if found.version > replica.committed.version { await catchUpNow() }
        return true
    }

    /// Waits for a ticket's outcome, writing batches if no one else is.
    private func outcome(of ticket: DocumentReplica.Ticket) async -> Result<LiveDocumentState, LiveDocumentError> {
        switch writer.arrive(for: ticket) {
        case .write:
            return await write(until: ticket)
        case .wait(let waiter):
            switch await withCheckedContinuation({ wakes[waiter] = $0 }) {
            case .settled(let result): return result
            case .write: return await write(until: ticket)
            }
        }
    }

    /// As the writer: writes batches until `ticket` is settled, then hands the writing on.
    private func write(until ticket: DocumentReplica.Ticket) async -> Result<LiveDocumentState, LiveDocumentError> {
        var emptyReads = 0
        while true {
            if let own = await writeBatch(watching: ticket, emptyReads: &emptyReads) {
                await handOver()
                return own
            }
        }
    }

    /// Writes the staged operations in one transaction and settles what it can. Returns
    /// `ticket`'s outcome if it was settled.
    ///
    /// If another server sharing the store wrote first, its entries are applied and every
    /// staged operation is redone on top of them, in order, to be written next time; one that
    /// no longer applies fails alone with a conflict.
    private func writeBatch(
        watching ticket: DocumentReplica.Ticket, emptyReads: inout Int
    ) async -> Result<LiveDocumentState, LiveDocumentError>? {
        guard let batch = replica.nextBatch() else {
            // Nothing staged yet the ticket unsettled: only a closed copy gets here.
            return .failure(closedReason.map(Self.callerError) ?? .unloaded)
        }
        do {
            if let closedReason { throw Self.callerError(closedReason) }
            try await commits.commit(LogAppend(id: id, entries: batch.entries, summary: batch.summary))
        } catch StoreError.versionConflict {
            return await rebaseAfterConflict(watching: ticket, emptyReads: &emptyReads)
        } catch {
            let failure: LiveDocumentError =
                switch error {
                case let error as LiveDocumentError: error
                case StoreError.notFound: .deleted
                case StoreError.unavailable(let reason): .storeUnavailable(reason)
                default: .storeFailed(String(describing: error))
                }
            return failAll(with: failure, watching: ticket)
        }
        return settle(replica.batchCommitted(), watching: ticket)
    }

    /// After a version conflict: reads what other servers wrote since the committed version
    /// and rebases the staged operations onto it. A read that finds nothing new (the store's
    /// replica lagging) is retried after a growing pause, a few times.
    private func rebaseAfterConflict(
        watching ticket: DocumentReplica.Ticket, emptyReads: inout Int
    ) async -> Result<LiveDocumentState, LiveDocumentError>? {
        let theirs: [LogEntry]?
        do {
            theirs = try await store.logEntries(of: id, after: replica.committed.version)
        } catch StoreError.unavailable(let reason) {
            return failAll(with: .storeUnavailable(reason), watching: ticket)
        } catch {
            return failAll(with: .storeFailed(String(describing: error)), watching: ticket)
        }
        // Closed meanwhile (deleted, unloaded): callers hear why, not a store failure.
        if let closedReason { return failAll(with: Self.callerError(closedReason), watching: ticket) }
        // Folded into a newer snapshot: callers retry on a fresh copy.
        guard let theirs else { return failAll(with: .unloaded, watching: ticket) }
        if theirs.isEmpty {
            emptyReads += 1
            guard emptyReads <= Self.emptyReadLimit else { return failAll(with: .unloaded, watching: ticket) }
            try? await Task.sleep(for: .milliseconds(1 << min(emptyReads, 7)))
        }
        do {
            let settlement = try replica.rebase(onto: theirs)
            // A notification that came during the read was judged against the batch then in
            // flight: read once more before the writer stops.
            writer.wantCatchUp()
            return settle(settlement, watching: ticket)
        } catch {
            return failAll(with: .unloaded, watching: ticket)
        }
    }

    /// How many times a conflict may find nothing new in the log before the copy gives up.
    static let emptyReadLimit = 8

    /// Publishes settled changes and answers the callers whose outcomes are known; returns
    /// `ticket`'s if it is among them.
    private func settle(
        _ settlement: DocumentReplica.Settlement, watching ticket: DocumentReplica.Ticket
    ) -> Result<LiveDocumentState, LiveDocumentError>? {
        for change in settlement.changes { windows.send(.change(change)) }
        if settlement.backgroundMayHaveChanged { refreshBackground() }
        var results: [DocumentReplica.Ticket: Result<LiveDocumentState, LiveDocumentError>] = [:]
        for (settled, result) in settlement.outcomes { results[settled] = result.map(withBackgroundState) }
        for (waiter, settled) in writer.settled(settlement.outcomes.map(\.ticket)) {
            wakes.removeValue(forKey: waiter)?.resume(returning: .settled(results[settled]!))
        }
        return results[ticket]
    }

    /// Closes this copy after a failed write or read: the callers whose operations were in the
    /// batch being written hear `failure`; the others (never sent) hear why the copy closed, so
    /// the library retries them on a fresh copy. Returns `ticket`'s outcome.
    private func failAll(
        with failure: LiveDocumentError, watching ticket: DocumentReplica.Ticket
    ) -> Result<LiveDocumentState, LiveDocumentError> {
        close(reason: closedReason ?? failure)
        let sent = replica.inFlightTickets
        let unsent = Self.callerError(closedReason ?? failure)
        for (waiter, waiting) in writer.failAll() {
            wakes.removeValue(forKey: waiter)?.resume(
                returning: .settled(.failure(sent.contains(waiting) ? failure : unsent)))
        }
        return .failure(sent.contains(ticket) ? failure : unsent)
    }

    /// Gives the writing to a caller whose operation is staged; else catches up if asked to
    /// meanwhile, and stops.
    private func handOver() async {
        while true {
            let next = writer.handOver(
                staged: replica.staged.lazy.map(\.ticket), replicaIdle: replica.isIdle, closed: closedReason != nil)
            switch next {
            case .handTo(let waiter):
                wakes.removeValue(forKey: waiter)?.resume(returning: .write)
                return
            case .writeStaged:
                // Staged with no caller waiting (cannot happen: each has its caller or is the
                // writer's own): written here, so nothing staged is ever left behind.
                var emptyReads = 0
                _ = await writeBatch(watching: -1, emptyReads: &emptyReads)
            case .catchUp:
                await readOthersEntries()
            case .stop(let idle):
                if let closedReason {
                    // Closed while writing (deleted, say): whoever still waits hears why.
                    _ = failAll(with: Self.callerError(closedReason), watching: -1)
                }
                for waiter in idle { idles.removeValue(forKey: waiter)?.resume() }
                return
            }
        }
    }

    // MARK: Changes made by other servers

    /// Applies what other servers sharing the store appended after this copy's version, and
    /// sends it to this copy's windows. Each entry is replayed as what it was — an edit, an
    /// undo, a redo — so the undo history stays the same on every server. While this copy is
    /// writing, the writer does it before it stops (a write that finds it was behind rebases
    /// anyway). If the entries are gone (folded into a newer snapshot), the copy is closed
    /// instead and its windows reconnect to a fresh one.
    ///
    /// - Parameter notifiedVersion: the version a notification announced: nothing to do if
    ///   this copy has it or is writing it.
    public func catchUp(to notifiedVersion: Int? = nil) async {
        guard closedReason == nil else { return }
        if let notifiedVersion, notifiedVersion <= replica.knownVersion { return }
        guard writer.catchUpHeard() else { return }
        await readOthersEntries()
        await handOver()
    }

    /// Waits for the writer to stop, then catches up.
    private func catchUpNow() async {
        while case .afterIdle(let waiter) = writer.catchUpBeforeSubmitting() {
            await withCheckedContinuation { idles[waiter] = $0 }
        }
        if closedReason == nil { await readOthersEntries() }
        await handOver()
    }

    /// As the writer: reads the log after the committed version and rebases onto it.
    private func readOthersEntries() async {
        let entries: [LogEntry]?
        do {
            entries = try await store.logEntries(of: id, after: replica.committed.version)
        } catch {
            return  // the store is unreachable; the next notification or resync tries again
        }
        guard closedReason == nil else { return }
        guard let entries else {
            _ = failAll(with: .unloaded, watching: -1)
            return
        }
        guard !entries.isEmpty else { return }
        do {
            _ = settle(try replica.rebase(onto: entries), watching: -1)
        } catch {
            _ = failAll(with: .unloaded, watching: -1)
        }
    }

    /// The error a caller hears from a closed copy: ``LiveDocumentError/deleted`` if its
    /// document is gone, else ``LiveDocumentError/unloaded`` (the library retries on a fresh
    /// copy). Only the callers whose own commit failed hear `.storeFailed`.
    private static func callerError(_ reason: LiveDocumentError) -> LiveDocumentError {
        reason == .deleted ? .deleted : .unloaded
    }

    private func checkOpen() throws {
        guard let closedReason else { return }
        throw Self.callerError(closedReason)
    }

    // MARK: Background image

    /// Brings the background state up to date with the committed background: starts fetching a
    /// URL (or checking embedded bytes), superseding any fetch in flight — whose late result,
    /// success or failure, is then ignored.
    func refreshBackground() {
        let before = background.state
        guard let refresh = background.refresh(for: replica.committed.document.background) else { return }
        backgroundTask?.cancel()
        backgroundTask = nil
        if background.state != before { windows.send(.background(background.state)) }
        guard let start = refresh.start, let images else { return }
        backgroundTask = Task {
            let result =
                switch start {
                case .download(let url, _): await images.image(for: url, document: id)
                case .check(let data, _): await images.store(data, document: id)
                }
            self.finishBackground(start, with: result)
        }
    }

    private func finishBackground(
        _ start: BackgroundFetch.Start, with result: Result<StoredImage, BackgroundImageError>
    ) {
        let before = background.state
        guard background.finish(start, with: result) else { return }
        backgroundTask = nil
        if background.state != before { windows.send(.background(background.state)) }
    }

    // MARK: Snapshots and closing

    /// Whether nothing is being written: every acknowledged change is in the store's log.
    var isSettled: Bool { !writer.isWriting && replica.isIdle }

    /// Folds the log into a new snapshot, keeping the newest `retainedLog` entries after it
    /// (a fresh copy replays them to restore the undo history and the recent request ids).
    /// Returns whether it wrote one.
    @discardableResult
    func compact(keepingLog retainedLog: Int) async throws -> Bool {
        guard closedReason == nil, replica.committed.version - retainedLog > snapshotVersion else { return false }
        guard let (snapshot, log) = try await store.loadDocument(id: id) else { return false }
        let target = DocumentReplica.compactionPoint(
            snapshotVersion: snapshot.version, log: log, retaining: retainedLog)
        guard snapshot.version < target else {
            snapshotVersion = max(snapshotVersion, snapshot.version)
            return false
        }
        let folded = try snapshot.folding(log.prefix { $0.version <= target })
        try await store.saveSnapshot(folded)
        snapshotVersion = max(snapshotVersion, folded.version)
        return true
    }

    /// Stops serving this copy if nothing is being written and no window follows it; later
    /// calls fail with ``LiveDocumentError/unloaded``.
    func closeIfSettled() -> Bool {
        guard closedReason == nil, isSettled, windows.count == 0 else { return false }
        close(reason: .unloaded)
        return true
    }

    /// Stops serving this copy, as ``closeIfSettled()`` does, when another server appended
    /// `notifiedVersion` and this copy is behind it, if no window ever followed it: it has no
    /// one to catch up for. (A document's copy on a server that only created it, or answered a
    /// request about it, would otherwise read the log once for every change the server its
    /// windows are on makes: docs/PERFORMANCE.md.)
    func closeIfUnwatched(behind notifiedVersion: Int) -> Bool {
        guard notifiedVersion > replica.knownVersion, !followed else { return false }
        return closeIfSettled()
    }

    /// Stops serving this copy at once (the document was deleted, or it fell out of step).
    func close(reason: LiveDocumentError) {
        guard closedReason == nil else { return }
        closedReason = reason
        backgroundTask?.cancel()
        windows.finishAll(with: reason == .deleted ? .deleted : .closed)
    }

    // MARK: Live windows

    /// How many versions of changes are kept for windows that reconnect behind.
    public static let recentChangeLimit = DocumentReplica.recentChangeLimit
    /// How many events may wait for a slow window before it is dropped (it reconnects).
    public static let subscriberBufferLimit = 1_024

    /// Follows the document live. The subscription's ``LiveSubscription/state`` is the committed
    /// state now; ``LiveSubscription/missed`` holds the changes after `version` if the window
    /// has that version and they are still kept (else nil: take the state as a snapshot). Every
    /// later change, background state and the deletion of the document arrive as events, in
    /// order. The stream ends after `.deleted` or `.closed`, or without either if the window
    /// fell more than ``subscriberBufferLimit`` events behind.
    public func subscribe(since version: Int? = nil) throws -> LiveSubscription {
        let (events, continuation) = AsyncStream.makeStream(
            of: LiveEvent.self, bufferingPolicy: .bufferingOldest(Self.subscriberBufferLimit))
        let following = try follow(
            since: version,
            receive: { event in
                switch continuation.yield(event) {
                case .dropped, .terminated: false
                default: true
                }
            },
            ended: { continuation.finish() })
        continuation.onTermination = { _ in following.end() }
        return LiveSubscription(
            state: following.state, missed: following.missed, events: events, end: { continuation.finish() })
    }

    /// Follows the document live like ``subscribe(since:)``, but each event is handed to
    /// `receive` as it is sent, on the document's executor — so it must only pass the event on
    /// (a live connection puts it in its outbox). `receive` returns false to stop following;
    /// `ended` is called once when following ends, however it ends.
    public func follow(
        since version: Int?, receive: @escaping @Sendable (LiveEvent) -> Bool, ended: @escaping @Sendable () -> Void
    ) throws -> LiveFollowing {
        try checkOpen()
        let state = try state()
        let missed = version.flatMap { replica.changes(after: $0) }
        followed = true
        let id = windows.subscribe(receive: receive, ended: ended)
        let windows = windows
        return LiveFollowing(state: state, missed: missed, end: { windows.unsubscribe(id) })
    }

    /// How many windows follow the document (for tests and metrics).
    public var subscriberCount: Int { windows.count }
}
