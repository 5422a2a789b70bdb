import EmojiArtKit
import EmojiArtStore
import Foundation
import Testing

@testable import EmojiArtLive

/// Holds a replica so the tests' expectations can call its mutating decisions.
final class ReplicaDriver {
    var replica: DocumentReplica
    let date: Date

    init(_ replica: DocumentReplica, date: Date) {
        self.replica = replica
        self.date = date
    }

    func submit(_ operation: DocumentOperation) throws -> DocumentReplica.Submission {
        try replica.submit(operation, at: date)
    }
    func nextBatch() -> DocumentReplica.Batch? { replica.nextBatch() }
    @discardableResult
    func batchCommitted() -> DocumentReplica.Settlement { replica.batchCommitted() }
    func rebase(onto theirs: [LogEntry]) throws -> DocumentReplica.Settlement { try replica.rebase(onto: theirs) }

    /// Commits the batch in flight, or else writes whatever is staged and commits it, as the
    /// live document would after a good append.
    @discardableResult
    func commit() -> DocumentReplica.Settlement {
        if replica.inFlight == 0 { _ = replica.nextBatch() }
        guard replica.inFlight > 0 else { return DocumentReplica.Settlement() }
        return replica.batchCommitted()
    }
}

/// The replica's decisions, driven directly: no store, no actor, no waiting.
@Suite("A document replica decides every change as a value")
struct DocumentReplicaTests {
    let date = Date(timeIntervalSince1970: 1_000_000)

    func add(_ x: Int) -> Edit { .addEmoji(text: "😀", position: Point(x: x, y: 0), size: 40) }
    func edit(_ edits: [Edit], base: Int, id: String? = nil, gesture: String? = nil) -> DocumentOperation {
        DocumentOperation(step: .perform(gesture: gesture), edits: edits, baseVersion: base, requestID: id)
    }
    func undo(base: Int, id: String? = nil) -> DocumentOperation {
        DocumentOperation(step: .undo, baseVersion: base, requestID: id)
    }
    func redo(base: Int, id: String? = nil) -> DocumentOperation {
        DocumentOperation(step: .redo, baseVersion: base, requestID: id)
    }

    func snapshot(_ document: EmojiArtDocument? = nil, version: Int = 0) throws -> StoredDocument {
        StoredDocument(
            id: UUID(uuidString: "00000000-0000-0000-0000-0000000000AA")!, document: try document ?? EmojiArtDocument(),
            version: version, createdAt: date, updatedAt: date)
    }

    func driver(log: [LogEntry] = []) throws -> ReplicaDriver {
        ReplicaDriver(try DocumentReplica(snapshot: try snapshot(), log: log, undoLimit: 1000), date: date)
    }

    @Test func aStagedChangeIsInvisibleUntilCommitted() throws {
        let replica = try driver()
        #expect(try replica.submit(edit([add(1)], base: 0)) == .staged(0))
        #expect(replica.replica.committed.version == 0)
        #expect(replica.replica.committed.document.emojis.isEmpty)
        #expect(replica.replica.workingVersion == 1)
        let batch = try #require(replica.nextBatch())
        #expect(batch.entries.map(\.version) == [1])
        #expect(batch.summary.emojiCount == 1)
        #expect(replica.nextBatch() == nil, "one batch in flight at a time")
        let settlement = replica.batchCommitted()
        #expect(settlement.changes.map(\.version) == [1])
        #expect(settlement.outcomes.map(\.ticket) == [0])
        #expect(replica.replica.committed.version == 1)
        #expect(replica.replica.committed.undoActionName == "Add 😀")
    }

    @Test func changesStagedDuringACommitGoInTheNextBatch() throws {
        let replica = try driver()
        _ = try replica.submit(edit([add(1)], base: 0))
        _ = try #require(replica.nextBatch())
        _ = try replica.submit(edit([add(2)], base: 0))
        _ = try replica.submit(undo(base: 0))
        // Finding 5: a notification is compared with what this copy has or is writing, not
        // with what it has merely staged.
        #expect(replica.replica.knownVersion == 1)
        #expect(replica.replica.workingVersion == 3)
        let first = replica.batchCommitted()
        #expect(first.changes.map(\.version) == [1])
        // The committed history is the one staged for version 1, not a replay of it.
        #expect(replica.replica.committed.undoActionName == "Add 😀")
        #expect(replica.replica.committed.redoActionName == nil)
        let second = replica.commit()
        #expect(second.changes.map(\.version) == [2, 3])
        #expect(replica.replica.committed.document.emojis.map(\.position.x) == [1])
        #expect(replica.replica.committed.redoActionName == "Add 😀")
    }

    // Finding 1: a resent request is applied once, whether its original is committed or staged.
    @Test func aResentRequestJoinsItsOriginalWhileStagedAndIsRecognisedOnceCommitted() throws {
        let replica = try driver()
        #expect(try replica.submit(edit([add(1)], base: 0, id: "r1")) == .staged(0))
        _ = try #require(replica.nextBatch())
        #expect(try replica.submit(edit([add(1)], base: 0, id: "r1")) == .joined(0))
        #expect(replica.replica.workingVersion == 1)
        replica.commit()
        #expect(try replica.submit(edit([add(1)], base: 0, id: "r1")) == .alreadyApplied(version: 1))
        #expect(try replica.submit(undo(base: 1, id: "r1")) == .alreadyApplied(version: 1))
        #expect(replica.replica.committed.document.emojis.count == 1)
    }

    // Finding 3: nothing to do is answered with the committed state, never the working one;
    // an undo or redo with nothing to do is refused, not acknowledged.
    @Test func nothingToDoChangesNothingAndStagesNothing() throws {
        let replica = try driver()
        #expect(throws: LiveDocumentError.nothingToUndo) { try replica.submit(undo(base: 0)) }
        #expect(throws: LiveDocumentError.nothingToRedo) { try replica.submit(redo(base: 0)) }
        _ = try replica.submit(edit([add(1)], base: 0))
        #expect(try replica.submit(edit([], base: 0)) == .unchanged)
        #expect(throws: LiveDocumentError.nothingToRedo) { try replica.submit(redo(base: 0)) }
        #expect(replica.replica.workingVersion == 1)
        #expect(replica.replica.committed.version == 0)
    }

    // Only a change the client hadn't seen makes a failing edit a conflict (409); an edit
    // invalid whatever came since is the client's own error (422), whatever its base.
    @Test func aFailingEditIsAConflictOnlyWhereUnseenChangesTouchedItsEmojis() throws {
        let replica = try driver()
        _ = try replica.submit(edit([add(1)], base: 0))
        _ = try replica.submit(edit([add(2)], base: 0))
        _ = try replica.submit(edit([.deleteEmojis(ids: [1])], base: 0))
        replica.commit()
        func failure(_ operation: DocumentOperation) -> (any Error)? {
            do {
                _ = try replica.submit(operation)
                return nil
            } catch { return error }
        }
        // Emoji 1 was deleted after version 2: moving it from there is a conflict.
        #expect(failure(edit([.moveEmojis(ids: [1], offset: Point(x: 1, y: 1))], base: 2)) is LiveDocumentError)
        // From version 3 the client saw it go: its own mistake.
        #expect(
            (failure(edit([.moveEmojis(ids: [1], offset: Point(x: 1, y: 1))], base: 3)) as? EmojiArtError)?.code
                == .unknownEmoji)
        // An emoji that never existed, from an old base: not a conflict.
        #expect(
            (failure(edit([.moveEmojis(ids: [99], offset: Point(x: 1, y: 1))], base: 0)) as? EmojiArtError)?.code
                == .unknownEmoji)
        // An offset off the canvas for an emoji nothing touched since: not a conflict.
        #expect(
            (failure(edit([.moveEmojis(ids: [2], offset: Point(x: 2_000_000_000, y: 0))], base: 2)) as? EmojiArtError)?
                .code
                == .outOfRange)
        #expect(replica.replica.workingVersion == 3)
    }

    // Finding 5: a base newer than this copy asks for a catch-up, not a conflict.
    @Test func aNewerBaseAsksToCatchUpEvenWhileCommitting() throws {
        let replica = try driver()
        _ = try replica.submit(edit([add(1)], base: 0))
        _ = try #require(replica.nextBatch())
        #expect(try replica.submit(edit([add(2)], base: 1)) == .behind)
        #expect(try replica.submit(edit([add(2)], base: 7)) == .behind)
        replica.commit()
        #expect(try replica.submit(edit([add(2)], base: 1)) == .staged(1))
    }

    @Test func invalidAndStaleEditsAreToldApart() throws {
        let replica = try driver()
        _ = try replica.submit(edit([add(1)], base: 0))
        replica.commit()
        _ = try replica.submit(edit([.deleteEmojis(ids: [1])], base: 1))
        replica.commit()
        #expect(throws: LiveDocumentError.self) {
            try replica.submit(edit([.moveEmojis(ids: [1], offset: Point(x: 1, y: 1))], base: 1))
        }
        #expect(throws: EmojiArtError.self) {
            try replica.submit(edit([.moveEmojis(ids: [1], offset: Point(x: 1, y: 1))], base: 2))
        }
        #expect(replica.replica.workingVersion == 2)
    }

    // Finding 2: a copy opened afresh has the request ids, the undo history and the recent
    // changes its log records.
    @Test func aCopyOpenedFromTheLogHasItsHistoryAndRequestIDsBack() throws {
        let original = try driver()
        _ = try original.submit(edit([add(1)], base: 0, id: "a"))
        _ = try original.submit(edit([.moveEmojis(ids: [1], offset: Point(x: 5, y: 0))], base: 0, id: "b"))
        _ = try original.submit(edit([add(2)], base: 0, id: "c"))
        _ = try original.submit(undo(base: 0, id: "d"))
        let batch = try #require(original.nextBatch())
        original.batchCommitted()

        let reopened = ReplicaDriver(
            try DocumentReplica(snapshot: try snapshot(), log: batch.entries, undoLimit: 1000), date: date)
        #expect(reopened.replica.committed.document == original.replica.committed.document)
        #expect(reopened.replica.committed.version == 4)
        #expect(reopened.replica.committed.undoActionName == "Move")
        #expect(reopened.replica.committed.redoActionName == "Add 😀")
        for id in ["a", "b", "c", "d"] {
            #expect(
                try reopened.submit(edit([add(9)], base: 4, id: id))
                    == .alreadyApplied(version: reopened.replica.committedVersion(ofRequest: id) ?? -1))
        }
        #expect(reopened.replica.changes(after: 2)?.map(\.version) == [3, 4])
        // Undo after reopening undoes what was done before.
        _ = try reopened.submit(undo(base: 4))
        reopened.commit()
        #expect(reopened.replica.committed.document.emojis.first?.position == Point(x: 1, y: 0))
        _ = try original.submit(undo(base: 4))
        original.commit()
        #expect(reopened.replica.committed.document == original.replica.committed.document)
        #expect(reopened.replica.committed.undoActionName == original.replica.committed.undoActionName)
        #expect(reopened.replica.committed.redoActionName == original.replica.committed.redoActionName)
    }

    @Test func aLogThatSkipsOrNoLongerAppliesIsCorrupt() throws {
        #expect(throws: StoreError.self) {
            try driver(log: [LogEntry(version: 2, edits: [add(1)], date: date, step: .perform(gesture: nil))])
        }
        #expect(throws: StoreError.self) {
            try driver(log: [
                LogEntry(
                    version: 1, edits: [.moveEmojis(ids: [4], offset: Point(x: 1, y: 1))], date: date,
                    step: .perform(gesture: nil))
            ])
        }
    }

    @Test func aRebaseAppliesTheirsThenRedoesOursOnTopAndFailsOnlyWhatNoLongerApplies() throws {
        let replica = try driver()
        _ = try replica.submit(edit([add(1), add(2)], base: 0))
        replica.commit()
        // Ours: move emoji 1, move emoji 2, and a request the other server also took.
        _ = try replica.submit(edit([.moveEmojis(ids: [1], offset: Point(x: 1, y: 0))], base: 1))
        _ = try replica.submit(edit([.moveEmojis(ids: [2], offset: Point(x: 1, y: 0))], base: 1))
        _ = try replica.submit(edit([add(3)], base: 1, id: "resent"))
        _ = try #require(replica.nextBatch())
        // Theirs, written first: emoji 2 deleted, then the resent request.
        let theirs = [
            LogEntry(version: 2, edits: [.deleteEmojis(ids: [2])], date: date, step: .perform(gesture: nil)),
            LogEntry(version: 3, edits: [add(3)], date: date, step: .perform(gesture: nil), requestID: "resent"),
        ]
        let settlement = try replica.rebase(onto: theirs)
        #expect(settlement.changes.map(\.version) == [2, 3])
        #expect(settlement.backgroundMayHaveChanged)
        let outcomes = Dictionary(uniqueKeysWithValues: settlement.outcomes.map { ($0.ticket, $0.result) })
        #expect(outcomes[1] == nil, "still to be written")
        guard case .failure(.conflict)? = outcomes[2] else {
            Issue.record("moving the deleted emoji should conflict, got \(String(describing: outcomes[2]))")
            return
        }
        #expect((try? outcomes[3]?.get())?.version == 3)
        #expect(replica.replica.committed.version == 3)
        #expect(replica.replica.staged.map(\.entry.version) == [4])
        #expect(replica.replica.inFlight == 0)
        let written = replica.commit()
        #expect(written.outcomes.map(\.ticket) == [1])
        #expect(replica.replica.committed.document.emojis.map(\.id).sorted() == [1, 3])
    }

    @Test func aRebaseOntoEntriesThatDontFollowDiverges() throws {
        let replica = try driver()
        #expect(throws: DocumentReplica.Diverged.self) {
            try replica.rebase(onto: [LogEntry(version: 5, edits: [add(1)], date: date)])
        }
        let other = try driver()
        #expect(throws: DocumentReplica.Diverged.self) {
            try other.rebase(onto: [
                LogEntry(version: 1, edits: [.deleteEmojis(ids: [42])], date: date, step: .perform(gesture: nil))
            ])
        }
    }

    @Test func anotherServersUndoIsFollowedAsAnUndo() throws {
        let replica = try driver()
        _ = try replica.submit(edit([add(1)], base: 0))
        replica.commit()
        let undoEdits = [Edit.deleteEmojis(ids: [1])]
        _ = try replica.rebase(onto: [LogEntry(version: 2, edits: undoEdits, date: date, step: .undo)])
        #expect(replica.replica.committed.undoActionName == nil)
        #expect(replica.replica.committed.redoActionName == "Add 😀")
        #expect(try replica.submit(redo(base: 2)) == .staged(1))
    }

    @Test func requestIDsAreRememberedForTheNewestVersionsOnly() throws {
        let replica = try driver()
        let count = DocumentReplica.rememberedRequests * 2 + 10
        for index in 0..<count {
            _ = try replica.submit(
                edit([.retitle("t\(index)")], base: replica.replica.committed.version, id: "r\(index)"))
            replica.commit()
        }
        #expect(replica.replica.committedVersion(ofRequest: "r\(count - 1)") == count)
        #expect(replica.replica.committedVersion(ofRequest: "r\(count - DocumentReplica.rememberedRequests)") != nil)
        #expect(replica.replica.committedVersion(ofRequest: "r0") == nil)
        #expect(replica.replica.recentChanges.count <= DocumentReplica.recentChangeLimit * 2)
        #expect(replica.replica.changes(after: count - 5)?.count == 5)
        #expect(replica.replica.changes(after: 0) == nil)
    }

    @Test func aResentRequestThatChangedNothingStillChangesNothing() throws {
        let replica = try driver()
        _ = try replica.submit(edit([add(1)], base: 0))
        replica.commit()
        _ = try replica.submit(undo(base: 1))
        replica.commit()
        #expect(throws: LiveDocumentError.nothingToUndo) { try replica.submit(undo(base: 2, id: "u")) }
        // Someone else adds; the window resends its undo after a reconnect: still refused.
        _ = try replica.submit(edit([add(2)], base: 2))
        replica.commit()
        #expect(throws: LiveDocumentError.nothingToUndo) { try replica.submit(undo(base: 3, id: "u")) }
        #expect(try replica.submit(edit([], base: 3, id: "e")) == .unchanged)
        _ = try replica.submit(edit([add(3)], base: 3))
        replica.commit()
        #expect(try replica.submit(edit([], base: 4, id: "e")) == .alreadyApplied(version: 3))
        #expect(replica.replica.committed.document.emojis.count == 2, "the others' adds stay: nothing was undone")
    }

    @Test func aSnapshotIsNeverTakenInTheMiddleOfAGesture() {
        func entry(_ version: Int, _ step: LogStep) -> LogEntry {
            LogEntry(version: version, edits: [.retitle("v\(version)")], date: date, step: step)
        }
        let drag = LogStep.perform(gesture: "drag-1")
        let log = [
            entry(11, .perform(gesture: nil)), entry(12, drag), entry(13, drag), entry(14, drag),
            entry(15, .perform(gesture: nil)), entry(16, .undo),
        ]
        // Keeping 3 would fold 11–13 and split the drag (12–14): fold only up to 11.
        #expect(DocumentReplica.compactionPoint(snapshotVersion: 10, log: log, retaining: 3) == 11)
        #expect(DocumentReplica.compactionPoint(snapshotVersion: 10, log: log, retaining: 2) == 14)
        #expect(DocumentReplica.compactionPoint(snapshotVersion: 10, log: log, retaining: 6) == 10)
        #expect(DocumentReplica.compactionPoint(snapshotVersion: 10, log: log, retaining: 9) == 10)
        // A gesture that reaches back to the snapshot: nothing to fold.
        #expect(DocumentReplica.compactionPoint(snapshotVersion: 11, log: Array(log.dropFirst()), retaining: 4) == 11)
    }
}
