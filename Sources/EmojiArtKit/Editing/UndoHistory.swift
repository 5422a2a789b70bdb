/// Undo and redo stacks of edits, with action names, gesture grouping and a step limit.
///
/// A step stores only the inverse edits it needs (a move step is the ids and an offset), never a
/// copy of the document. ``EditingSession`` pairs a history with the document it belongs to.
public struct UndoHistory: Sendable {
    /// One undoable step: what it is called and the edits that reverse it.
    public struct Step: Sendable, Equatable {
        /// "Move", "Add 🚚", …
        public var actionName: String
        /// Consecutive edits sent with the same gesture key extend one step.
        var gesture: String?
        /// Edits in the order they must be applied to reverse the step.
        var edits: EditList
    }

    /// Edits of one step; one edit (the common case) needs no array allocation.
    enum EditList: Sendable, Equatable {
        case one(Edit)
        case many([Edit])

        var inOrder: [Edit] {
            switch self {
            case .one(let edit): [edit]
            case .many(let edits): edits
            }
        }
    }

    /// The most steps kept; the oldest are forgotten first.
    public let limit: Int
    /// Undo steps, oldest first; those before `oldestStep` have fallen off the limit and are
    /// dropped in batches, so recording a step at the limit costs O(1) amortized.
    private var undoStorage: [Step] = []
    private var oldestStep = 0
    public private(set) var redoSteps: [Step] = []

    /// The steps undo can reverse, oldest first.
    public var undoSteps: ArraySlice<Step> { undoStorage[oldestStep...] }

    /// - Parameter limit: how many steps undo can go back; at least 1.
    public init(limit: Int = 1000) {
        self.limit = max(1, limit)
    }

    public var canUndo: Bool { undoStorage.count > oldestStep }
    public var canRedo: Bool { !redoSteps.isEmpty }
    /// The name of the step undo would reverse, e.g. "Move" (shown as "Undo Move").
    public var undoActionName: String? { canUndo ? undoStorage.last?.actionName : nil }
    public var redoActionName: String? { redoSteps.last?.actionName }

    /// Records a performed step given its inverses in application order. A new step clears redo.
    mutating func record(actionName: String, inverses: [Edit], gesture: String?) {
        redoSteps.removeAll()
        if let gesture, canUndo, let last = undoStorage.last, last.gesture == gesture {
            // Undoing the gesture applies the newest inverses first.
            let edits = UndoHistory.coalesced(inverses.reversed() + last.edits.inOrder)
            undoStorage[undoStorage.count - 1].edits = edits.count == 1 ? .one(edits[0]) : .many(edits)
            return
        }
        let edits: EditList = inverses.count == 1 ? .one(inverses[0]) : .many(Array(inverses.reversed()))
        pushUndo(Step(actionName: actionName, gesture: gesture, edits: edits))
    }

    /// Stops the newest undo step from absorbing later edits of its gesture.
    mutating func endGesture() {
        guard canUndo else { return }
        undoStorage[undoStorage.count - 1].gesture = nil
    }

    /// Which stack a step comes from or goes to.
    enum Direction {
        case undo, redo

        var opposite: Direction { self == .undo ? .redo : .undo }
    }

    mutating func pop(_ direction: Direction) -> Step? {
        switch direction {
        case .undo: canUndo ? undoStorage.popLast() : nil
        case .redo: redoSteps.popLast()
        }
    }

    mutating func push(_ step: Step, onto direction: Direction) {
        switch direction {
        case .undo: pushUndo(step)
        case .redo: redoSteps.append(step)
        }
    }

    private mutating func pushUndo(_ step: Step) {
        undoStorage.append(step)
        if undoStorage.count - oldestStep > limit {
            oldestStep += 1
            // Forget fallen-off steps once there are as many of them as live ones.
            if oldestStep >= limit {
                undoStorage.removeFirst(oldestStep)
                oldestStep = 0
            }
        }
    }

    /// Merges neighbouring inverses of one gesture so a step stays the size of one edit:
    /// two moves of the same emojis add their offsets; of two size restorations of the same
    /// emojis, the later one in this list (the older sizes) is the one that matters.
    static func coalesced(_ edits: [Edit]) -> [Edit] {
        var result: [Edit] = []
        result.reserveCapacity(edits.count)
        for edit in edits {
            switch (result.last, edit) {
            case (.moveEmojis(let ids, let a)?, .moveEmojis(let sameIDs, let b)) where ids == sameIDs:
                result[result.count - 1] = .moveEmojis(ids: ids, offset: Point(x: a.x + b.x, y: a.y + b.y))
            case (.setEmojiSizes(let newer)?, .setEmojiSizes(let older))
            where newer.map(\.id) == older.map(\.id):
                result[result.count - 1] = .setEmojiSizes(older)
            default:
                result.append(edit)
            }
        }
        return result
    }
}
