/// A document with its undo history: every change to an open document goes through here.
///
/// ```swift
/// var session = EditingSession(document: try EmojiArtDocument())
/// try session.perform(.addEmoji(text: "🚚", position: .zero, size: 40))
/// session.history.undoActionName  // "Add 🚚"
/// try session.undo()
/// ```
public struct EditingSession: Sendable {
    public private(set) var document: EmojiArtDocument
    public private(set) var history: UndoHistory

    public init(document: EmojiArtDocument, undoLimit: Int = 1000) {
        self.document = document
        self.history = UndoHistory(limit: undoLimit)
    }

    /// Applies one edit as an undo step.
    ///
    /// - Parameter gesture: a key shared by every edit of one drag or pinch; consecutive edits
    ///   with the same key form one undo step.
    /// - Returns: the inverse edit.
    @discardableResult
    public mutating func perform(_ edit: Edit, gesture: String? = nil) throws -> Edit {
        try perform([edit], gesture: gesture)[0]
    }

    /// Applies several edits atomically as one undo step: all of them, or (on the first error)
    /// none of them.
    ///
    /// - Returns: the inverses, in the order the edits were applied.
    @discardableResult
    public mutating func perform(_ edits: [Edit], gesture: String? = nil) throws -> [Edit] {
        guard let first = edits.first else { return [] }
        let inverses = try EditingSession.applyAtomically(edits, to: &document)
        history.record(actionName: first.actionName, inverses: inverses, gesture: gesture)
        return inverses
    }

    /// Reverses the last step.
    ///
    /// - Returns: the edits that were applied to the document, or nil if there was nothing to undo.
    @discardableResult
    public mutating func undo() throws -> [Edit]? {
        try replay(.undo)
    }

    /// Re-applies the last undone step.
    ///
    /// - Returns: the edits that were applied to the document, or nil if there was nothing to redo.
    @discardableResult
    public mutating func redo() throws -> [Edit]? {
        try replay(.redo)
    }

    /// The edits ``undo()`` would apply, or nil if there is nothing to undo.
    public var undoEdits: [Edit]? { history.lastUndoStep?.edits.inOrder }

    /// The edits ``redo()`` would apply, or nil if there is nothing to redo.
    public var redoEdits: [Edit]? { history.redoSteps.last?.edits.inOrder }

    /// Applies the top step of one stack and moves it, now holding the edits that reverse what
    /// was just applied, to the other stack. On failure the step stays where it was.
    private mutating func replay(_ direction: UndoHistory.Direction) throws -> [Edit]? {
        guard let step = history.pop(direction) else { return nil }
        let applied = step.edits.inOrder
        do {
            let reversing = try EditingSession.applyAtomically(applied, to: &document)
            history.push(step.with(edits: reversing.reversed()), onto: direction.opposite)
            // An undo or redo ends any gesture: a later edit with the same key is a new step.
            history.endGesture()
            return applied
        } catch {
            history.push(step, onto: direction)
            throw error
        }
    }

    /// Applies edits made elsewhere that this history cannot account for (another server's
    /// undo of a step this one never saw): the document changes, and the history is emptied,
    /// so undo can never apply a step to a document it no longer describes.
    public mutating func applyOutsideHistory(_ edits: [Edit]) throws {
        _ = try EditingSession.applyAtomically(edits, to: &document)
        history = UndoHistory(limit: history.limit)
    }

    /// Applies edits in order; if one throws, reverses those already applied and rethrows.
    static func applyAtomically(_ edits: [Edit], to document: inout EmojiArtDocument) throws -> [Edit] {
        var inverses: [Edit] = []
        inverses.reserveCapacity(edits.count)
        let nextEmojiID = document.nextEmojiID
        do {
            for edit in edits {
                inverses.append(try document.apply(edit))
            }
        } catch {
            for inverse in inverses.reversed() {
                // An exact inverse of an edit just applied always applies.
                _ = try? document.apply(inverse)
            }
            // Inverses never lower the id counter, but a change that was not made must not
            // use up ids: replaying the edit log would give later emojis other ids.
            document.nextEmojiID = nextEmojiID
            throw error
        }
        return inverses
    }
}

extension UndoHistory.Step {
    /// The same step holding other edits; the gesture ends, so later edits start a new step.
    func with(edits: [Edit]) -> Self {
        Self(actionName: actionName, gesture: nil, edits: edits.count == 1 ? .one(edits[0]) : .many(edits))
    }
}
