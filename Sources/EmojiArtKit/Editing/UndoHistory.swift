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
    /// dropped a chunk at a time, so recording a step at the limit costs O(1) amortized.
    private var undoStorage = Chunks()
    private var oldestStep = 0
    public private(set) var redoSteps: [Step] = []

    /// The steps undo can reverse, oldest first (all of them copied: for inspection, not for
    /// every edit).
    public var undoSteps: ArraySlice<Step> { undoStorage.all[oldestStep...] }

    /// - Parameter limit: how many steps undo can go back; at least 1.
    public init(limit: Int = 1000) {
        self.limit = max(1, limit)
    }

    public var canUndo: Bool { undoStorage.count > oldestStep }
    /// The step undo would reverse.
    public var lastUndoStep: Step? { canUndo ? undoStorage.last : nil }
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
            undoStorage.updateLast { $0.edits = edits.count == 1 ? .one(edits[0]) : .many(edits) }
            return
        }
        let edits: EditList = inverses.count == 1 ? .one(inverses[0]) : .many(Array(inverses.reversed()))
        pushUndo(Step(actionName: actionName, gesture: gesture, edits: edits))
    }

    /// Stops the newest undo step from absorbing later edits of its gesture.
    mutating func endGesture() {
        guard canUndo else { return }
        undoStorage.updateLast { $0.gesture = nil }
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
            // Forget fallen-off steps a whole chunk at a time.
            oldestStep -= undoStorage.dropFirstChunks(within: oldestStep)
        }
    }

    /// Steps in chunks of at most ``size``. A copy of the history — the live replica keeps one
    /// for each batch in flight — shares every chunk but the one it then changes, where one
    /// array would copy every step (up to the limit's thousand) once a batch.
    struct Chunks: Sendable {
        static let size = 64
        private var chunks: [[Step]] = []
        private(set) var count = 0

        var last: Step? { chunks.last?.last }

        /// Every step, oldest first.
        var all: [Step] { Array(chunks.joined()) }

        mutating func append(_ step: Step) {
            if chunks.isEmpty || chunks[chunks.count - 1].count >= Self.size {
                chunks.append([])
                chunks[chunks.count - 1].reserveCapacity(Self.size)
            }
            chunks[chunks.count - 1].append(step)
            count += 1
        }

        mutating func popLast() -> Step? {
            guard !chunks.isEmpty else { return nil }
            let step = chunks[chunks.count - 1].removeLast()
            if chunks[chunks.count - 1].isEmpty { chunks.removeLast() }
            count -= 1
            return step
        }

        mutating func updateLast(_ change: (inout Step) -> Void) {
            guard !chunks.isEmpty else { return }
            change(&chunks[chunks.count - 1][chunks[chunks.count - 1].count - 1])
        }

        /// Drops the oldest chunks that lie wholly within the first `steps` steps: how many
        /// steps went.
        mutating func dropFirstChunks(within steps: Int) -> Int {
            var dropped = 0
            while let first = chunks.first, dropped + first.count <= steps, chunks.count > 1 {
                dropped += first.count
                chunks.removeFirst()
            }
            count -= dropped
            return dropped
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
