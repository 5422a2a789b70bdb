import EmojiArtKit
import EmojiArtStore
import Foundation

/// A change asked of a live document: an edit request, an undo or a redo.
public struct DocumentOperation: Sendable, Equatable {
    /// `.perform(gesture:)`, `.undo` or `.redo`.
    public var step: LogStep
    /// The request's edits (for ``LogStep/perform(gesture:)``; empty for undo and redo).
    public var edits: [Edit]
    /// The version the client last saw.
    public var baseVersion: Int
    /// A live window's id for the request: a request with an id already applied (or being
    /// applied) is not applied again.
    public var requestID: String?
    /// Who asks (a user's id), kept in the log entry for the document's history.
    public var author: UUID?

    public init(
        step: LogStep, edits: [Edit] = [], baseVersion: Int, requestID: String? = nil, author: UUID? = nil
    ) {
        self.step = step
        self.edits = edits
        self.baseVersion = baseVersion
        self.requestID = requestID
        self.author = author
    }
}

/// One open document's state and every decision about it, with no I/O and no suspension:
/// the committed state, the operations staged on top of it and waiting to be written, the one
/// undo history, the recent request ids and the recent changes. ``LiveDocument`` carries out
/// what it decides — writes a batch, waits, publishes changes, answers callers — the way
/// postgres-nio's `ConnectionPool` carries out its `PoolStateMachine`'s actions.
///
/// Its life: ``submit(_:at:)`` stages an operation (or says it is a duplicate, a no-op, or
/// needs the copy to catch up first); ``nextBatch()`` hands the staged entries to be written;
/// ``batchCommitted()`` makes them the committed state; ``rebase(onto:)`` applies what other
/// servers appended first and redoes the staged operations on top of it.
struct DocumentReplica {
    /// Names a submitted operation until its outcome is known (its version may change in a rebase).
    typealias Ticket = Int

    /// How many of the newest committed requests' ids are remembered: a request resent within
    /// this many versions is recognised. A copy opened afresh remembers those in its log.
    static let rememberedRequests = 2_000
    /// How many versions of changes are kept for windows that reconnect behind.
    static let recentChangeLimit = 1_000

    /// An operation applied to the working state, waiting to be written.
    struct Staged {
        var ticket: Ticket
        var operation: DocumentOperation
        var entry: LogEntry
        /// What the entry changes, for live windows.
        var patch: DocumentPatch
        /// The document's state once the entry is durable.
        var state: LiveDocumentState
    }

    /// What became of a submitted operation.
    enum Submission: Equatable {
        /// Staged as the next version: its outcome comes with the ticket.
        case staged(Ticket)
        /// The same request is already staged: its outcome is this ticket's.
        case joined(Ticket)
        /// The same request was already committed, as `version`.
        case alreadyApplied(version: Int)
        /// Nothing to do (no edits; nothing to undo or redo): the committed state answers.
        case unchanged
        /// The client saw a version newer than this copy's (through another server): catch up
        /// from the store, then submit again.
        case behind
    }

    /// What to write next.
    struct Batch {
        var entries: [LogEntry]
        var summary: DocumentSummary
    }

    /// What a commit or a rebase settled: changes to send to windows, and callers' outcomes.
    struct Settlement {
        var changes: [LiveChange] = []
        var outcomes: [(ticket: Ticket, result: Result<LiveDocumentState, LiveDocumentError>)] = []
        /// The committed background may have changed.
        var backgroundMayHaveChanged: Bool { !changes.isEmpty }
    }

    /// This copy's history no longer matches the log (a bug, or a log written by something
    /// else): it must be closed and opened afresh from the store.
    struct Diverged: Error, Equatable {
        var reason: String
    }

    let id: UUID
    let createdAt: Date
    /// The state at the newest durable version: what readers see.
    private(set) var committed: LiveDocumentState
    /// The session at ``committed``'s version.
    private var committedSession: EditingSession
    /// The session with every staged operation applied.
    private var working: EditingSession
    /// Staged operations in version order, after ``committed``; the first ``inFlight`` are
    /// being written.
    private(set) var staged: [Staged] = []
    private(set) var inFlight = 0
    /// The session at the end of the batch in flight: the committed one once it is durable.
    private var inFlightSession: EditingSession?
    private var nextTicket: Ticket = 0
    /// Ids of committed requests with their versions, and their order (oldest first).
    private var committedRequests: [String: Int] = [:]
    private var requestOrder: [(version: Int, requestID: String)] = []
    /// The oldest version from which every committed request's id is remembered: those before
    /// it came before the snapshot this copy opened from, or were forgotten for newer ones.
    private var requestsRememberedFrom: Int
    /// Requests refused for having nothing to do (``refuse(_:_:)``), oldest first in the order.
    private var refusedRequests: [String: LiveDocumentError] = [:]
    private var refusedOrder: [String] = []
    /// Ids of staged requests with their tickets.
    private var stagedRequests: [String: Ticket] = [:]
    /// The keys (their claims, ``RequestKey``) taken by the committed changes whose ids this
    /// copy remembers, with the request that took each. (Requests that changed nothing, or were
    /// refused, take none: they are not in the log, so other copies couldn't know.)
    private var claims: [Substring: String] = [:]
    /// The latest versions' changes, oldest first.
    private(set) var recentChanges: [LiveChange] = []

    /// Opens a document from its snapshot and the log after it: each entry is replayed as what
    /// it was (an edit, an undo, a redo), so the undo history, the recent request ids and the
    /// recent changes are what they were on the server that wrote them.
    ///
    /// - Throws: ``StoreError/corrupt(_:)`` if the log skips a version or no longer applies.
    init(snapshot: StoredDocument, log: [LogEntry], undoLimit: Int) throws {
        id = snapshot.id
        createdAt = snapshot.createdAt
        requestsRememberedFrom = snapshot.version + 1
        committedSession = EditingSession(document: snapshot.document, undoLimit: undoLimit)
        working = committedSession
        committed = LiveDocumentState(
            id: snapshot.id, document: snapshot.document, version: snapshot.version, undoActionName: nil,
            redoActionName: nil, createdAt: snapshot.createdAt, updatedAt: snapshot.updatedAt)
        // Patches only for the changes kept for reconnecting windows.
        let patchesFrom = log.count - Self.recentChangeLimit
        for (index, entry) in log.enumerated() {
            guard entry.version == committed.version + 1 else {
                throw StoreError.corrupt(
                    "document \(id)'s log skips from \(committed.version) to \(entry.version)")
            }
            do {
                try replay(entry, withPatch: index >= patchesFrom)
            } catch {
                throw StoreError.corrupt("document \(id)'s log entry \(entry.version) no longer applies: \(error)")
            }
        }
        takeReplayedDocument()
    }

    /// The version the working state is at: committed plus staged.
    var workingVersion: Int { committed.version + staged.count }

    /// The newest version this copy has or is writing: a notification of a version up to
    /// this one needs no catch-up (if it came from another server, the write in flight
    /// conflicts and rebases onto it).
    var knownVersion: Int { committed.version + inFlight }

    /// The operations in the batch being written.
    var inFlightTickets: Set<Ticket> { Set(staged.prefix(inFlight).map(\.ticket)) }

    /// Whether nothing is staged: every acknowledged change is in the store.
    var isIdle: Bool { staged.isEmpty }

    /// The version that request made, if it is one of the remembered committed requests.
    func committedVersion(ofRequest requestID: String) -> Int? { committedRequests[requestID] }

    /// Whether a request made on `baseVersion` may have been committed at a version whose
    /// request id this copy no longer remembers (or never read): then only the store's log can
    /// tell whether it was (``DocumentStore/version(ofRequest:in:after:)``).
    func mayHaveForgotten(requestsAfter baseVersion: Int) -> Bool {
        baseVersion < requestsRememberedFrom - 1  // (the base is the client's: never `+ 1` it)
    }

    /// Whether `requestID` is a committed request this copy remembers, or one staged now.
    func knows(request requestID: String) -> Bool {
        committedRequests[requestID] != nil || stagedRequests[requestID] != nil
    }

    // MARK: Submitting

    /// Decides what to do with an operation: stage it on the working state as the next version,
    /// recognise it as a duplicate, or find it changes nothing.
    ///
    /// - Throws: ``LiveDocumentError/conflict(currentVersion:reason:)`` if its emojis were
    ///   deleted or moved by a change the client hadn't seen; the edit's own error (an
    ///   ``EmojiArtError``) if it is invalid. Nothing changes.
    mutating func submit(_ operation: DocumentOperation, at date: Date) throws -> Submission {
        if let requestID = operation.requestID {
            if let version = committedRequests[requestID] { return .alreadyApplied(version: version) }
            if let ticket = stagedRequests[requestID] { return .joined(ticket) }
            if let refusal = refusedRequests[requestID] { throw refusal }
            if let claim = RequestKey.claim(of: requestID), isTaken(claim, by: requestID) {
                throw LiveDocumentError.keyReused
            }
        }
        // The client can only have seen committed versions, of this copy or another server's.
        if operation.baseVersion > committed.version { return .behind }
        if case .perform = operation.step, operation.edits.isEmpty { return unchanged(operation) }
        if case .undo = operation.step, working.undoEdits == nil { throw refuse(operation, .nothingToUndo) }
        if case .redo = operation.step, working.redoEdits == nil { throw refuse(operation, .nothingToRedo) }
        guard let staged = try stage(operation, ticket: nextTicket, at: date) else { return unchanged(operation) }
        nextTicket += 1
        append(staged)
        return .staged(staged.ticket)
    }

    /// An undo or redo with nothing to do, refused; its request id is remembered (by this copy
    /// only), so a resend whose refusal was lost with a connection is refused again rather than
    /// undo a change someone made since.
    private mutating func refuse(_ operation: DocumentOperation, _ error: LiveDocumentError) -> LiveDocumentError {
        guard let requestID = operation.requestID else { return error }
        refusedRequests[requestID] = error
        refusedOrder.append(requestID)
        if refusedOrder.count > Self.rememberedRequests * 2 {
            let forgotten = refusedOrder.count - Self.rememberedRequests
            for requestID in refusedOrder[..<forgotten] { refusedRequests[requestID] = nil }
            refusedOrder.removeFirst(forgotten)
        }
        return error
    }

    /// An operation that changes nothing; its request id is remembered (by this copy only: it
    /// is not in the log), so a resend after someone else's change doesn't undo that instead.
    private mutating func unchanged(_ operation: DocumentOperation) -> Submission {
        if let requestID = operation.requestID { rememberRequest(requestID, version: committed.version, inLog: false) }
        return .unchanged
    }

    /// Whether another request than `requestID` took `claim`: a committed change this copy
    /// remembers, or one staged.
    private func isTaken(_ claim: Substring, by requestID: String) -> Bool {
        if let taker = claims[claim] { return taker != requestID }
        return stagedRequests.keys.contains { $0 != requestID && RequestKey.claim(of: $0) == claim }
    }

    /// Applies an operation to ``working`` as the next version. Nil if it changes nothing.
    private mutating func stage(_ operation: DocumentOperation, ticket: Ticket, at date: Date) throws -> Staged? {
        let firstNewID = working.document.nextEmojiID
        let upcoming: [Edit]? =
            switch operation.step {
            case .perform: operation.edits
            case .undo: working.undoEdits
            case .redo: working.redoEdits
            case .unrecorded: nil
            }
        let idsBefore = DocumentPatch.needsIDsBefore(upcoming) ? working.document.emojis.ids : nil
        let applied: [Edit]
        let stepName: String? =
            switch operation.step {
            case .undo: working.history.undoActionName
            case .redo: working.history.redoActionName
            case .perform, .unrecorded: nil
            }
        do {
            switch operation.step {
            case .perform(let gesture):
                guard !operation.edits.isEmpty else { return nil }
                try working.perform(operation.edits, gesture: gesture)
                applied = operation.edits
            case .undo:
                guard let edits = try working.undo() else { return nil }
                applied = edits
            case .redo:
                guard let edits = try working.redo() else { return nil }
                applied = edits
            case .unrecorded:
                return nil
            }
        } catch let error as EmojiArtError
            where (error.code == .unknownEmoji || error.code == .outOfRange)
            && unseenChangesTouch(operation.edits, since: operation.baseVersion)
        {
            // Its emojis were deleted or moved by a change the client hadn't seen.
            throw LiveDocumentError.conflict(currentVersion: committed.version, reason: error.description)
        }
        let version = workingVersion + 1
        let updatedAt = max(date, staged.last?.entry.date ?? committed.updatedAt)
        let entry = LogEntry(
            version: version, edits: applied, date: updatedAt, step: operation.step, requestID: operation.requestID,
            author: operation.author, actionName: stepName)
        let state = LiveDocumentState(
            id: id, document: working.document, version: version, undoActionName: working.history.undoActionName,
            redoActionName: working.history.redoActionName, createdAt: createdAt, updatedAt: updatedAt)
        return Staged(
            ticket: ticket, operation: operation, entry: entry,
            patch: DocumentPatch(
                edits: applied, firstNewID: firstNewID, after: working.document, idsBefore: idsBefore),
            state: state)
    }

    /// Whether changes after `version` that the client hadn't seen removed, changed or put back
    /// any emoji `edits` name — so an edit that fails on them may have been fine when sent (a
    /// conflict), not invalid in itself. True when those changes are no longer all here.
    private func unseenChangesTouch(_ edits: [Edit], since version: Int) -> Bool {
        guard version < workingVersion else { return false }
        guard let committedChanges = changes(after: version) else { return true }
        let named = edits.reduce(into: Set<Int>()) { $0.formUnion($1.emojiIDs) }
        let patches = committedChanges.map(\.patch) + staged.map(\.patch)
        return patches.contains { patch in
            !named.isDisjoint(with: patch.removedIDs) || patch.updated.contains { named.contains($0.id) }
                || patch.inserted.contains { named.contains($0.emoji.id) }
        }
    }

    private mutating func append(_ entry: Staged) {
        staged.append(entry)
        if let requestID = entry.operation.requestID { stagedRequests[requestID] = entry.ticket }
    }

    // MARK: Committing

    /// The staged entries not yet being written, now marked in flight; nil if a batch is
    /// already in flight or nothing is staged.
    mutating func nextBatch() -> Batch? {
        guard inFlight == 0, let last = staged.last else { return nil }
        inFlight = staged.count
        inFlightSession = working
        let summary = DocumentSummary(
            id: id, title: last.state.document.title, emojiCount: last.state.document.emojis.count,
            version: last.state.version, createdAt: createdAt, updatedAt: last.state.updatedAt)
        return Batch(entries: staged.map(\.entry), summary: summary)
    }

    /// The batch in flight is durable: it becomes the committed state.
    mutating func batchCommitted() -> Settlement {
        let batch = staged[..<inFlight]
        staged.removeFirst(inFlight)
        inFlight = 0
        committedSession = inFlightSession ?? working
        inFlightSession = nil
        var settlement = Settlement()
        for commit in batch {
            if let requestID = commit.operation.requestID { stagedRequests[requestID] = nil }
            committed = commit.state
            let change = LiveChange(
                version: commit.entry.version, patch: commit.patch, undoActionName: commit.state.undoActionName,
                redoActionName: commit.state.redoActionName, updatedAt: commit.state.updatedAt,
                requestID: commit.entry.requestID)
            remember(change)
            settlement.changes.append(change)
            settlement.outcomes.append((commit.ticket, .success(commit.state)))
        }
        return settlement
    }

    /// Another server appended `theirs` after the committed version (they came first, or this
    /// copy is catching up): applies them as they were, then redoes every staged operation on
    /// top, in order. A staged request that is among theirs (resent to the other server) is
    /// done; one that no longer applies fails alone with a conflict.
    ///
    /// - Throws: ``Diverged`` if their entries don't follow the committed version or don't
    ///   apply: close the copy; every staged operation's caller retries on a fresh one.
    mutating func rebase(onto theirs: [LogEntry]) throws(Diverged) -> Settlement {
        var settlement = Settlement()
        let operations = staged
        staged = []
        inFlight = 0
        inFlightSession = nil
        stagedRequests = [:]
        working = committedSession
        for entry in theirs {
            guard entry.version == committed.version + 1 else {
                throw Diverged(reason: "expected version \(committed.version + 1), read \(entry.version)")
            }
            do {
                if let change = try replay(entry, withPatch: true) { settlement.changes.append(change) }
            } catch {
                throw Diverged(reason: "version \(entry.version) does not apply: \(error)")
            }
        }
        takeReplayedDocument()
        for operation in operations {
            if let requestID = operation.operation.requestID, committedRequests[requestID] != nil {
                settlement.outcomes.append((operation.ticket, .success(committed)))
                continue
            }
            if let requestID = operation.operation.requestID, let claim = RequestKey.claim(of: requestID),
                isTaken(claim, by: requestID)
            {
                // Another server's change took its key first.
                settlement.outcomes.append((operation.ticket, .failure(.keyReused)))
                continue
            }
            do {
                if let restaged = try stage(operation.operation, ticket: operation.ticket, at: operation.entry.date) {
                    append(restaged)
                } else {
                    // Nothing left to do: an undo with nothing left to undo.
                    _ = unchanged(operation.operation)
                    settlement.outcomes.append((operation.ticket, .success(committed)))
                }
            } catch let error as LiveDocumentError {
                settlement.outcomes.append((operation.ticket, .failure(error)))
            } catch let error as EmojiArtError where error.code == .locked {
                // A lock is refused the same whichever server's change came first.
                settlement.outcomes.append((operation.ticket, .failure(.refused(error))))
            } catch {
                settlement.outcomes.append(
                    (
                        operation.ticket,
                        .failure(
                            .conflict(
                                currentVersion: committed.version,
                                reason: "another server's change came first: \(error)"))
                    ))
            }
        }
        return settlement
    }

    /// Applies a committed entry (from the store) to ``committedSession`` as what it was; with
    /// `withPatch`, returns the change for live windows and keeps it for reconnecting ones.
    @discardableResult
    private mutating func replay(_ entry: LogEntry, withPatch: Bool) throws -> LiveChange? {
        let firstNewID = committedSession.document.nextEmojiID
        let idsBefore =
            withPatch && DocumentPatch.needsIDsBefore(entry.edits) ? committedSession.document.emojis.ids : nil
        try committedSession.mirror(entry)
        // The document itself is taken once the replay is done (``takeReplayedDocument()``):
        // holding it here would make the next entry copy the whole document.
        committed.version = entry.version
        committed.updatedAt = max(committed.updatedAt, entry.date)
        committed.undoActionName = committedSession.history.undoActionName
        committed.redoActionName = committedSession.history.redoActionName
        guard withPatch else {
            if let requestID = entry.requestID { rememberRequest(requestID, version: entry.version) }
            return nil
        }
        let change = LiveChange(
            version: entry.version,
            patch: DocumentPatch(
                edits: entry.edits, firstNewID: firstNewID, after: committedSession.document, idsBefore: idsBefore),
            undoActionName: committed.undoActionName, redoActionName: committed.redoActionName,
            updatedAt: entry.date, requestID: entry.requestID)
        remember(change)
        return change
    }

    /// Makes the committed state show the replayed session's document, and drops the working
    /// session's hold on the pre-replay one.
    private mutating func takeReplayedDocument() {
        committed.document = committedSession.document
        working = committedSession
    }

    /// Keeps a committed change for reconnecting windows and its request id for resends.
    private mutating func remember(_ change: LiveChange) {
        recentChanges.append(change)
        if recentChanges.count > Self.recentChangeLimit * 2 {
            recentChanges.removeFirst(recentChanges.count - Self.recentChangeLimit)
        }
        if let requestID = change.requestID { rememberRequest(requestID, version: change.version) }
    }

    private mutating func rememberRequest(_ requestID: String, version: Int, inLog: Bool = true) {
        committedRequests[requestID] = version
        requestOrder.append((version, requestID))
        if inLog, let claim = RequestKey.claim(of: requestID), claims[claim] == nil { claims[claim] = requestID }
        if requestOrder.count > Self.rememberedRequests * 2 {
            let forgotten = requestOrder.count - Self.rememberedRequests
            for (version, requestID) in requestOrder[..<forgotten] where committedRequests[requestID] == version {
                committedRequests[requestID] = nil
                if let claim = RequestKey.claim(of: requestID), claims[claim] == requestID { claims[claim] = nil }
            }
            requestsRememberedFrom = max(requestsRememberedFrom, requestOrder[forgotten - 1].version + 1)
            requestOrder.removeFirst(forgotten)
        }
    }

    /// The version to fold a stored log into a snapshot at so that the newest `retained`
    /// entries stay: never between two entries of one gesture (a fresh copy would restore half
    /// the gesture as a step of its own), and never before the snapshot. `log` holds the
    /// entries after `snapshotVersion`, in order.
    static func compactionPoint(snapshotVersion: Int, log: [LogEntry], retaining retained: Int) -> Int {
        var point = (log.last?.version ?? snapshotVersion) - retained
        func entry(_ version: Int) -> LogEntry? {
            let index = version - snapshotVersion - 1
            return log.indices.contains(index) ? log[index] : nil
        }
        while point > snapshotVersion, let next = entry(point + 1), case .perform(let gesture?) = next.step,
            entry(point)?.step == .perform(gesture: gesture)
        {
            point -= 1
        }
        return max(point, snapshotVersion)
    }

    /// The changes after `version`, if this copy still has them all (else nil).
    func changes(after version: Int) -> [LiveChange]? {
        guard version <= committed.version else { return nil }
        if version == committed.version { return [] }
        guard let first = recentChanges.first, first.version <= version + 1 else { return nil }
        return Array(recentChanges.drop { $0.version <= version })
    }
}

extension EditingSession {
    /// Applies a log entry as what it was — an edit, an undo, a redo — so this history stays
    /// the one the entry's server had; where it cannot (this history never saw the step undone),
    /// the edits are applied and the history emptied. Nothing is copied: the entry is checked
    /// against the history before it is applied.
    ///
    /// - Throws: the edit's error if the entry does not apply to the document at all (nothing
    ///   changes).
    mutating func mirror(_ entry: LogEntry) throws {
        switch entry.step {
        case .perform(let gesture): try perform(entry.edits, gesture: gesture)
        case .undo where undoEdits == entry.edits: try undo()
        case .redo where redoEdits == entry.edits: try redo()
        case .undo, .redo, .unrecorded: try applyOutsideHistory(entry.edits)
        }
    }
}
