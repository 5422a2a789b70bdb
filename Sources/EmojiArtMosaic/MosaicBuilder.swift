import EmojiArtImaging
import EmojiArtKit

/// How a mosaic chooses its emojis.
public struct MosaicOptions: Equatable, Sendable {
    /// What a cell is compared by.
    public enum Matching: String, Sendable, CaseIterable {
        /// The cell's mean colour against the emoji's.
        case mean
        /// The four quarters of the cell against the emoji's four quarters: an emoji whose
        /// light half is where the picture's is wins over one of the same mean colour.
        case quadrants
    }

    public var matching: Matching
    /// Floyd–Steinberg error diffusion in OKLab: each cell's colour error goes on to the cells
    /// right of it and below, so areas between two emojis' colours mix them in proportion.
    public var dither: Bool
    /// In flat areas, prefer an emoji other than the left and upper neighbours' when it is as
    /// close (within ``tieTolerance``), so a blue sky isn't one emoji repeated 200 times.
    public var avoidsRuns: Bool
    /// Cells the picture covers less than this (mean alpha) stay empty.
    public var minimumCoverage: Double
    /// An empty cell (the white canvas) competes with the emojis: where the picture is nearer
    /// white than to any emoji on white (a chart's or a logo's white ground, a bright sky), the
    /// cell stays empty rather than holding the faintest emoji there is.
    public var leavesWhiteEmpty: Bool

    /// How much further (ΔE) a different emoji may be than the nearest and still count as "as close".
    public static let tieTolerance = 0.012
    /// How far from the truly nearest emoji the search may settle (a factor of 1.05 on ΔE:
    /// invisible, and the search of a dark picture, far from every emoji on white, is 2–3× faster).
    public static let searchApproximation = 0.05

    public init(
        matching: Matching = .quadrants, dither: Bool = false, avoidsRuns: Bool = true, minimumCoverage: Double = 0.5,
        leavesWhiteEmpty: Bool = true
    ) {
        self.matching = matching
        self.dither = dither
        self.avoidsRuns = avoidsRuns
        self.minimumCoverage = minimumCoverage
        self.leavesWhiteEmpty = leavesWhiteEmpty
    }
}

/// The emojis a mosaic may use, with what they look like on white, indexed for nearest-colour search.
public struct MosaicPalette: Sendable {
    public let texts: [String]
    /// Each emoji's whole cell on white.
    let means: [OKLab]
    let byMean: NearestNeighbours
    let byQuadrants: NearestNeighbours

    /// - Throws: `invalid_emoji` if `signatures` is empty.
    public init(signatures: [EmojiSignature]) throws {
        guard !signatures.isEmpty else {
            throw EmojiArtError(.invalidEmoji, "the mosaic's emoji set has no emoji in it.", path: "emojis")
        }
        texts = signatures.map(\.text)
        means = signatures.map(\.whole.onWhite)
        byMean = NearestNeighbours(points: means.map { [$0.l, $0.a, $0.b] }, dimensions: 3)
        byQuadrants = NearestNeighbours(
            points: signatures.map { Self.quadrantPoint($0.quadrants.map(\.onWhite)) }, dimensions: 12)
    }

    /// The emojis `texts` names, with their signatures from `table`.
    public init(texts: [String], table: EmojiSignatureTable) throws {
        try self.init(signatures: texts.map { try table.signature(of: $0) })
    }

    /// Four quarters as one point; halved, so the distance between two is the root mean
    /// square of the quarters' ΔE.
    static func quadrantPoint(_ quarters: [OKLab]) -> [Double] {
        quarters.flatMap { [$0.l / 2, $0.a / 2, $0.b / 2] }
    }
}

/// A mosaic: which emoji each cell of a grid holds.
public struct Mosaic: Sendable {
    public var grid: MosaicGrid
    /// The emojis used, indexed by ``cells``.
    public var texts: [String]
    /// Row by row, each cell's emoji (an index into ``texts``), or -1 for an empty cell.
    public var cells: [Int32]

    /// How many cells hold an emoji.
    public var emojiCount: Int { cells.reduce(0) { $0 + ($1 >= 0 ? 1 : 0) } }

    /// The cells that hold an emoji, row by row: each one's column, row and index into ``texts``.
    public var filledCells: [(column: Int, row: Int, text: Int32)] {
        var filled: [(column: Int, row: Int, text: Int32)] = []
        filled.reserveCapacity(cells.count)
        for row in 0..<grid.rows {
            for column in 0..<grid.columns where cells[row * grid.columns + column] >= 0 {
                filled.append((column, row, cells[row * grid.columns + column]))
            }
        }
        return filled
    }

    /// The emojis to add to the document, row by row, each the size of its cell.
    public var emojis: [NewEmoji] {
        filledCells.map {
            NewEmoji(
                text: texts[Int($0.text)], position: grid.centre(column: $0.column, row: $0.row), size: grid.emojiSize)
        }
    }
}

/// Makes mosaics: samples the picture under each cell (``PictureSamples``), then picks each
/// cell's emoji from the palette by nearest colour (``MosaicOptions``).
public enum MosaicBuilder {
    public static func build(
        _ bitmap: Bitmap, grid: MosaicGrid, palette: MosaicPalette, options: MosaicOptions = MosaicOptions()
    ) -> Mosaic {
        build(PictureSamples(bitmap: bitmap, grid: grid), grid: grid, palette: palette, options: options)
    }

    public static func build(
        _ samples: PictureSamples, grid: MosaicGrid, palette: MosaicPalette, options: MosaicOptions
    ) -> Mosaic {
        let (columns, rows) = (grid.columns, grid.rows)
        var cells = [Int32](repeating: -1, count: columns * rows)
        // The colour error carried to each cell (Floyd–Steinberg), per OKLab axis.
        var carried = [Double](repeating: 0, count: columns * rows * 3)
        let wanted = options.avoidsRuns ? 3 : 1
        let tolerance = MosaicOptions.tieTolerance
        for row in 0..<rows {
            for column in 0..<columns {
                let cell = row * columns + column
                let sample = samples.cells[cell]
                guard sample.coverage >= options.minimumCoverage else { continue }
                let shift = OKLab(l: carried[cell * 3], a: carried[cell * 3 + 1], b: carried[cell * 3 + 2])
                let neighbours: [NearestNeighbours.Neighbour]
                let target = OKLab(
                    l: sample.whole.l + shift.l, a: sample.whole.a + shift.a, b: sample.whole.b + shift.b)
                switch options.matching {
                case .mean:
                    neighbours = palette.byMean.nearest(
                        [target.l, target.a, target.b], count: wanted,
                        approximation: MosaicOptions.searchApproximation)
                case .quadrants:
                    let shifted = sample.quadrants.map {
                        OKLab(l: $0.l + shift.l, a: $0.a + shift.a, b: $0.b + shift.b)
                    }
                    neighbours = palette.byQuadrants.nearest(
                        MosaicPalette.quadrantPoint(shifted), count: wanted,
                        approximation: MosaicOptions.searchApproximation)
                }
                // The empty cell, white all over, as a candidate: its distance the same measure.
                let white = OKLab.white
                let emptyDistance: Double =
                    switch options.matching {
                    case .mean: target.distance(to: white)
                    case .quadrants:
                        (sample.quadrants.reduce(0.0) { total, quarter in
                            let shifted = OKLab(
                                l: quarter.l + shift.l, a: quarter.a + shift.a, b: quarter.b + shift.b)
                            let distance = shifted.distance(to: white)
                            return total + distance * distance
                        } / 4).squareRoot()
                    }
                if options.leavesWhiteEmpty, emptyDistance * emptyDistance < neighbours[0].distanceSquared {
                    if options.dither {
                        carry(
                            (target.l - white.l, target.a - white.a, target.b - white.b), column, row, columns, rows,
                            &carried)
                    }
                    continue
                }
                var choice = neighbours[0].index
                if options.avoidsRuns {
                    let left = column > 0 ? cells[cell - 1] : -1
                    let up = row > 0 ? cells[cell - columns] : -1
                    let limit = neighbours[0].distanceSquared.squareRoot() + tolerance
                    if choice == left || choice == up,
                        let other = neighbours.first(where: {
                            $0.index != left && $0.index != up && $0.distanceSquared.squareRoot() <= limit
                        })
                    {
                        choice = other.index
                    }
                }
                cells[cell] = Int32(choice)
                guard options.dither else { continue }
                let chosen = palette.means[choice]
                carry(
                    (target.l - chosen.l, target.a - chosen.a, target.b - chosen.b), column, row, columns, rows,
                    &carried)
            }
        }
        return Mosaic(grid: grid, texts: palette.texts, cells: cells)
    }

    /// Floyd–Steinberg: a cell's colour error (each axis at most 0.2) to the cells right and below.
    @inline(__always)
    private static func carry(
        _ error: (Double, Double, Double), _ column: Int, _ row: Int, _ columns: Int, _ rows: Int,
        _ carried: inout [Double]
    ) {
        let clamped = (min(max(error.0, -0.2), 0.2), min(max(error.1, -0.2), 0.2), min(max(error.2, -0.2), 0.2))
        func add(_ dx: Int, _ dy: Int, _ weight: Double, _ carried: inout [Double]) {
            let (x, y) = (column + dx, row + dy)
            guard x >= 0, x < columns, y < rows else { return }
            let next = (y * columns + x) * 3
            carried[next] += clamped.0 * weight
            carried[next + 1] += clamped.1 * weight
            carried[next + 2] += clamped.2 * weight
        }
        add(1, 0, 7 / 16, &carried)
        add(-1, 1, 3 / 16, &carried)
        add(0, 1, 5 / 16, &carried)
        add(1, 1, 1 / 16, &carried)
    }
}

extension Mosaic {
    /// The edits that put the mosaic into `document` as one step ("Make Mosaic"): its emojis
    /// on top, then, with `replace`, the removal of the emojis that were on the grid's area.
    ///
    /// - Throws: `invalid_background` if no cell holds an emoji (the area is transparent);
    ///   `too_large` if the document couldn't hold the mosaic beside its emojis.
    public func edits(for document: EmojiArtDocument, replace: Bool) throws -> [Edit] {
        let emojis = self.emojis
        guard !emojis.isEmpty else {
            throw EmojiArtError(
                .invalidBackground, "the picture is transparent over the whole area, so the mosaic has no emoji.",
                path: "region")
        }
        guard document.emojis.count + emojis.count <= DocumentLimits.maximumEmojiCount else {
            throw EmojiArtError(
                .tooLarge,
                "the document has \(document.emojis.count) emojis and the mosaic \(emojis.count); a document holds at most \(DocumentLimits.maximumEmojiCount).",
                path: "columns")
        }
        // Locked emojis are finished work: a mosaic replacing the area goes round them.
        let covered = replace ? document.emojis.filter { !$0.locked && grid.covers($0.position) }.map(\.id) : []
        return [.mosaic(emojis)] + (covered.isEmpty ? [] : [.deleteEmojis(ids: covered)])
    }
}
