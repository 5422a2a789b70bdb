import EmojiArtKit

/// Where a mosaic's emojis go: a grid of square cells exactly over the background picture (or a
/// region of it). The picture is drawn centred at the document's origin, one point per pixel, so
/// picture pixel (px, py) (y down) is document point (px − width/2, height/2 − py) (y up).
///
/// A cell's side (`pitch`) is the region's width over the columns; the rows are as many as fill
/// the region's height at that pitch (rounded), and the grid is centred on the region, so it
/// covers it edge to edge whatever the number of columns. Documents place emojis at whole
/// points with whole sizes: each emoji is the pitch rounded (``emojiSize``) and sits at its
/// cell's centre rounded, within half a point of its place on the exact grid.
public struct MosaicGrid: Sendable {
    /// A rectangle of the picture, in its pixels (origin at its top left, y down).
    public struct Region: Equatable, Sendable, Codable {
        public var x: Int
        public var y: Int
        public var width: Int
        public var height: Int

        public init(x: Int, y: Int, width: Int, height: Int) {
            self.x = x
            self.y = y
            self.width = width
            self.height = height
        }
    }

    /// The fewest and most columns a mosaic has.
    public static let columnRange = 10...300
    /// The most cells a mosaic may have (every cell may hold an emoji; the document holds at
    /// most 100,000).
    public static let maximumCells = 60_000

    public var pictureWidth: Int
    public var pictureHeight: Int
    public var columns: Int
    public var rows: Int
    /// A cell's side, in points (pixels of the picture).
    public var pitch: Double
    /// Every emoji's size: the pitch, rounded to whole points.
    public var emojiSize: Int
    /// The grid's top-left corner in picture pixels.
    var corner: (x: Double, y: Double)

    /// The centre of the top-left cell, in whole document points (y up).
    public var origin: Point { centre(column: 0, row: 0) }

    /// The grid of `columns` over `region` (the whole picture if nil) of a `width` × `height`
    /// picture.
    ///
    /// - Throws: `out_of_range` for columns outside ``columnRange``, a region not inside the
    ///   picture, or cells larger than an emoji can be; `too_large` beyond `maximumCells` cells.
    public init(
        pictureWidth width: Int, pictureHeight height: Int, region: Region? = nil, columns: Int,
        maximumCells: Int = MosaicGrid.maximumCells
    ) throws {
        try Self.check(columns: columns)
        let area = region ?? Region(x: 0, y: 0, width: width, height: height)
        guard area.width > 0, area.height > 0, area.x >= 0, area.y >= 0, area.x <= width - area.width,
            area.y <= height - area.height
        else {
            throw EmojiArtError(
                .outOfRange,
                "the region \(area.width)×\(area.height) at (\(area.x), \(area.y)) is not inside the \(width)×\(height) picture.",
                path: "region")
        }
        let pitch = Double(area.width) / Double(columns)
        guard pitch >= 1 else {
            throw EmojiArtError(
                .outOfRange,
                "a region \(area.width) pixels wide holds at most \(area.width) columns (one point each), not \(columns).",
                path: "columns")
        }
        guard Double(area.height) >= pitch / 2 else {
            throw EmojiArtError(
                .outOfRange,
                "a region \(area.height) pixels tall is less than half a row of \(columns) columns; use more columns or a taller region.",
                path: "columns")
        }
        let size = max(1, Int(pitch.rounded()))
        guard DocumentLimits.sizeRange.contains(size) else {
            throw EmojiArtError(
                .outOfRange,
                "\(columns) columns over \(area.width) pixels make emojis of \(size) points, larger than an emoji can be (\(DocumentLimits.sizeRange.upperBound)); use more columns.",
                path: "columns")
        }
        let rows = max(1, Int((Double(area.height) / pitch).rounded()))
        guard columns * rows <= maximumCells else {
            throw EmojiArtError(
                .tooLarge,
                "a mosaic of \(columns) × \(rows) cells would have more than \(maximumCells) emojis; use fewer columns or a wider region.",
                path: "columns")
        }
        self.pictureWidth = width
        self.pictureHeight = height
        self.columns = columns
        self.rows = rows
        self.pitch = pitch
        self.emojiSize = size
        // The grid centred on the region (exactly across its width).
        self.corner = (Double(area.x), Double(area.y) + (Double(area.height) - Double(rows) * pitch) / 2)
    }

    public var cellCount: Int { columns * rows }

    /// Throws `out_of_range` unless `columns` is within ``columnRange``: what can be refused
    /// before the picture's size is known.
    public static func check(columns: Int) throws {
        guard columnRange.contains(columns) else {
            throw EmojiArtError(
                .outOfRange,
                "a mosaic has \(columnRange.lowerBound)–\(columnRange.upperBound) columns, not \(columns).",
                path: "columns")
        }
    }

    /// The centre of a cell, in whole document points.
    public func centre(column: Int, row: Int) -> Point {
        let (x, y) = pixelCorner(column: column, row: row)
        return Point(
            x: Int((x + pitch / 2 - Double(pictureWidth) / 2).rounded()),
            y: Int((Double(pictureHeight) / 2 - y - pitch / 2).rounded()))
    }

    /// A cell's left and top edges in picture pixels.
    func pixelCorner(column: Int, row: Int) -> (x: Double, y: Double) {
        (corner.x + Double(column) * pitch, corner.y + Double(row) * pitch)
    }

    /// Whether an emoji centred at `point` lies on the grid's area (what `replace` removes).
    public func covers(_ point: Point) -> Bool {
        let x = Double(point.x) + Double(pictureWidth) / 2
        let y = Double(pictureHeight) / 2 - Double(point.y)
        return x >= corner.x && x < corner.x + Double(columns) * pitch && y >= corner.y
            && y < corner.y + Double(rows) * pitch
    }
}
