/// A document (or some of its emojis) as rows of emoji text, for chat apps that show emoji
/// pasted as lines: each emoji goes to the cell of a grid nearest its centre, one line per row,
/// empty cells as a filler. The editor lays such text out again as a grid when it is pasted
/// (docs/FORMATS.md, "Emoji text"), so a text export pasted back is the same grid.
public struct EmojiTextGrid: Equatable, Sendable {
    /// What an empty cell is written as.
    public enum Filler: String, Sendable, CaseIterable {
        /// U+3000 IDEOGRAPHIC SPACE: as wide as an emoji in most fonts, and read back as empty.
        case ideographic
        /// ⬜: visible everywhere, but it is an emoji, so pasting it back places white squares.
        case square

        public var text: String {
            switch self {
            case .ideographic: "\u{3000}"
            case .square: "⬜"
            }
        }
    }

    /// The most columns and rows the text has; a wider or taller document is written on a
    /// coarser grid (several emojis to a cell: the one drawn on top is kept).
    public static let maximumColumns = 500
    public static let maximumRows = 500

    /// The rows, top to bottom; each cell an emoji or nil.
    public var rows: [[String?]]

    /// The grid of `emojis` (in drawing order): its cell is the size most of them have (the
    /// median), or larger so there are at most `columns` (and ``maximumColumns``) columns and
    /// ``maximumRows`` rows.
    public init(_ emojis: [Emoji], columns: Int? = nil) {
        guard !emojis.isEmpty else {
            rows = []
            return
        }
        let sizes = emojis.map(\.size).sorted()
        let minX = emojis.map(\.position.x).min()!
        let maxX = emojis.map(\.position.x).max()!
        let minY = emojis.map(\.position.y).min()!
        let maxY = emojis.map(\.position.y).max()!
        let widest = min(columns ?? Self.maximumColumns, Self.maximumColumns)
        let size = Double(sizes[sizes.count / 2])
        let found = Self.cell(size: size, xs: emojis.map(\.position.x))
        var pitch = found.cell
        if widest > 1 { pitch = max(pitch, Double(maxX - minX) / Double(widest - 1)) }
        pitch = max(pitch, Double(maxY - minY) / Double(Self.maximumRows - 1))
        let lattice = found.isLattice && pitch == found.cell
        let columnOf =
            widest > 1
            ? Self.indices(emojis.map { $0.position.x - minX }, pitch: pitch, lattice: lattice)
            : [:]
        let rowOf = Self.indices(emojis.map { maxY - $0.position.y }, pitch: pitch, lattice: lattice)
        var rows = [[String?]](
            repeating: [String?](repeating: nil, count: (columnOf.values.max() ?? 0) + 1),
            count: (rowOf.values.max() ?? 0) + 1)
        for emoji in emojis {
            rows[rowOf[maxY - emoji.position.y]!][columnOf[emoji.position.x - minX] ?? 0] = emoji.text
        }
        self.rows = rows
    }

    /// The side of a cell: the size most emojis have, or — when their centres stand on a lattice
    /// whose spacing differs from that by a fraction of a point, as a mosaic's do (cells of 6.4
    /// points hold 6-point emojis at whole points 6 or 7 apart; cells of 2.67 hold 3-point ones
    /// 2 or 3 apart) — the lattice's mean spacing, so no column is skipped or doubled.
    static func cell(size: Double, xs: [Int]) -> (cell: Double, isLattice: Bool) {
        let columns = Set(xs).sorted()
        guard columns.count >= 3 else { return (size, false) }
        let gaps = zip(columns.dropFirst(), columns).map { Double($0 - $1) }
        // The gaps between neighbouring columns: within a point of each other, near the size.
        let near = gaps.filter { $0 >= size * 0.5 && $0 <= size * 1.5 + 1 }
        guard near.count * 5 >= gaps.count * 4, let least = near.min(), let most = near.max(), most - least <= 1
        else { return (size, false) }
        return (near.reduce(0, +) / Double(near.count), true)
    }

    /// Each distinct offset's cell: its offset over the pitch, rounded — or, on a lattice of cells
    /// under two points (where whole-point places are up to a point off theirs and rounding could
    /// put two in one cell), counted from the one before: one cell on, unless the gap is clearly
    /// longer (a cell left empty).
    static func indices(_ offsets: [Int], pitch: Double, lattice: Bool) -> [Int: Int] {
        let sorted = Set(offsets).sorted()
        var cells: [Int: Int] = [:]
        guard lattice, pitch < 2, let first = sorted.first else {
            for offset in sorted { cells[offset] = Int((Double(offset) / pitch).rounded()) }
            return cells
        }
        var cell = Int((Double(first) / pitch).rounded())
        cells[first] = cell
        for (previous, offset) in zip(sorted, sorted.dropFirst()) {
            let gap = Double(offset - previous)
            cell += gap < 1.5 * pitch + 1 ? 1 : Int((gap / pitch).rounded())
            cells[offset] = cell
        }
        return cells
    }

    /// The text: one line per row, ending in a newline, without the empty cells at a row's end.
    public func text(filler: Filler = .ideographic) -> String {
        var text = ""
        for row in rows {
            let used = row.lastIndex { $0 != nil }.map { $0 + 1 } ?? 0
            for cell in row[..<used] { text += cell ?? filler.text }
            text += "\n"
        }
        return text
    }
}
