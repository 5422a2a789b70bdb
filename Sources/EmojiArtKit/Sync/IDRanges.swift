/// Emoji ids as runs of consecutive ids — `[[1, 10000]]` for ten thousand — so an edit or a
/// change that names a big selection costs about the same whatever its size (issue #21). Edits
/// accept `"idRanges"` wherever they take `"ids"`, and a change's `moved` groups always use it.
public enum IDRanges {
    /// The runs of `ids`, which must be strictly ascending; nil if they aren't.
    public static func runs(of ids: [Int]) -> [ClosedRange<Int>]? {
        var runs: [ClosedRange<Int>] = []
        var start: Int?
        var last = Int.min
        for id in ids {
            if let first = start {
                guard id > last else { return nil }
                if id != last + 1 {
                    runs.append(first...last)
                    start = id
                }
            } else {
                start = id
            }
            last = id
        }
        if let start { runs.append(start...last) }
        return runs
    }

    /// The runs of `ids` when writing them so is shorter than listing them: strictly ascending
    /// ids, at least 8 of them, in fewer than half as many runs.
    public static func compressed(_ ids: [Int]) -> [ClosedRange<Int>]? {
        guard ids.count >= 8, let runs = runs(of: ids), runs.count * 2 < ids.count else { return nil }
        return runs
    }

    /// Every id of `runs`, in order. Throws for a run that ends before it starts, or for more
    /// ids in all than a document can hold.
    public static func expand(_ runs: [(first: Int, last: Int)], path: String) throws -> [Int] {
        var ids: [Int] = []
        for (index, run) in runs.enumerated() {
            guard run.first <= run.last else {
                throw EmojiArtError(
                    .invalidFile, "the range [\(run.first), \(run.last)] ends before it starts.",
                    path: "\(path)[\(index)]")
            }
            // Subtracted without trapping: [-1, Int.max] overflows, and is too many anyway.
            let (span, overflow) = run.last.subtractingReportingOverflow(run.first)
            guard !overflow, span < DocumentLimits.maximumEmojiCount - ids.count else {
                throw EmojiArtError(
                    .tooLarge, "the ranges name more than \(DocumentLimits.maximumEmojiCount) emojis.", path: path)
            }
            ids.append(contentsOf: run.first...run.last)
        }
        return ids
    }
}
