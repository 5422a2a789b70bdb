import EmojiArtImaging
import EmojiArtKit

/// What a mosaic is asked to be — its columns, the part of the picture, its emojis and how they
/// are chosen — as one value the server and the command line both make mosaics from.
public struct MosaicRecipe: Sendable {
    public var columns: Int
    /// The part of the picture, in its pixels; nil for all of it.
    public var region: MosaicGrid.Region?
    /// The emojis to use; nil for ``MosaicEmojiSet/all(in:)``.
    public var emojis: [String]?
    public var options: MosaicOptions

    public init(columns: Int, region: MosaicGrid.Region? = nil, emojis: [String]? = nil, options: MosaicOptions) {
        self.columns = columns
        self.region = region
        self.emojis = emojis
        self.options = options
    }

    /// The grid over a `width` × `height` picture: everything that can be refused before a
    /// pixel is decoded (see ``MosaicGrid/init(pictureWidth:pictureHeight:region:columns:maximumCells:)``).
    public func grid(pictureWidth width: Int, pictureHeight height: Int) throws -> MosaicGrid {
        try MosaicGrid(pictureWidth: width, pictureHeight: height, region: region, columns: columns)
    }

    /// The mosaic of `bitmap` (its grid from the bitmap's own size). Emojis the signature table
    /// lacks are measured here.
    public func make(from bitmap: Bitmap, table: EmojiSignatureTable) throws -> Mosaic {
        let grid = try grid(pictureWidth: bitmap.width, pictureHeight: bitmap.height)
        let palette: MosaicPalette
        if let emojis {
            palette = try MosaicPalette(texts: emojis, table: table)
        } else {
            guard let all = MosaicPalette.all else {
                throw EmojiArtError(.invalidEmoji, "the emoji catalogue is missing from this installation.")
            }
            palette = all
        }
        return MosaicBuilder.build(bitmap, grid: grid, palette: palette, options: options)
    }

    /// A key naming the mosaic this recipe makes of the picture `imageID`.
    public func key(imageID: String) -> String {
        let area = region.map { "\($0.x),\($0.y),\($0.width),\($0.height)" } ?? "all"
        let matching = "\(options.matching.rawValue),\(options.dither),\(options.avoidsRuns),\(options.minimumCoverage)"
        return [imageID, String(columns), area, matching, emojis?.joined(separator: " ") ?? "all"].joined(
            separator: "|")
    }
}

extension MosaicPalette {
    /// The emoji set "all", indexed once.
    public static let all: MosaicPalette? = {
        guard let catalogue = EmojiCatalogue.bundled, let table = EmojiSignatureTable.bundled else { return nil }
        return try? MosaicPalette(texts: MosaicEmojiSet.all(in: catalogue), table: table)
    }()
}
