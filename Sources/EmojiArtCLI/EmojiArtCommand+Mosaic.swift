import ArgumentParser
import EmojiArtImaging
import EmojiArtKit
import EmojiArtMosaic
import Foundation

extension EmojiArtCommand {
    /// `emojiart mosaic`: a picture as a grid of emojis, in a document.
    struct MosaicCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "mosaic",
            abstract: "Turn a picture into emoji art: a grid of emojis whose colours match it.",
            discussion: """
                From a photo (PNG, JPEG, GIF or WebP) it makes a new document with the photo as \
                its embedded background and the mosaic on top: `emojiart mosaic cat.jpg cat.emojiart \
                --columns 80`. From a document it adds a mosaic of its background (embedded, or \
                fetched from its URL like `render` does), writing the document back in its format \
                or to OUTPUT. The mosaic is one undoable step ("Make Mosaic") when the document is \
                opened in the editor.
                """)

        @Argument(help: "A picture, or an .emojiart document with a background.") var input: String
        @Argument(help: "The document to write (required for a picture; default: the document itself).")
        var output: String?
        @Option(help: "Columns of emojis: 10 to 300.") var columns: Int = 80
        @Option(help: "The emojis to use, e.g. \"🟥🟧🟨🟩🟦🟪⬛⬜\" (default: all, less flags and text-like symbols).")
        var emojis: String?
        @Option(help: "Use a palette's emojis, by name or id (with --data/--database and --user as for `palettes`).")
        var palette: String?
        @Flag(help: "Diffuse each cell's colour error to its neighbours (Floyd–Steinberg).") var dither = false
        @Option(help: "Only this part of the picture: X,Y,WIDTH,HEIGHT in its pixels (from its top left).")
        var region: String?
        @Flag(help: "Remove the emojis already on the mosaic's area.") var replace = false
        @Option(help: "The format of a new document.") var to: DocumentFormat = .native
        @OptionGroup var store: StoreOptions
        @OptionGroup var owner: PaletteOwner

        func validate() throws {
            guard MosaicGrid.columnRange.contains(columns) else {
                throw ValidationError(
                    "--columns is \(MosaicGrid.columnRange.lowerBound) to \(MosaicGrid.columnRange.upperBound).")
            }
            guard emojis == nil || palette == nil else {
                throw ValidationError("Give --emojis or --palette, not both.")
            }
            if let region, Self.region(region) == nil {
                throw ValidationError("--region is X,Y,WIDTH,HEIGHT in whole pixels, e.g. 0,0,400,300.")
            }
        }

        /// A document: JSON, or a PNG exported by EmojiArt (which carries one). Anything else is
        /// taken for a picture, and says why if it isn't one.
        static func isDocument(_ bytes: [UInt8]) -> Bool {
            if bytes.first(where: { ![0x20, 0x09, 0x0A, 0x0D, 0xEF, 0xBB, 0xBF].contains($0) }) == UInt8(ascii: "{") {
                return true
            }
            return PictureDocument.isPNG(bytes) && (try? PictureDocument.extract(bytes)) != nil
        }

        static func region(_ text: String) -> MosaicGrid.Region? {
            let parts = text.split(separator: ",", omittingEmptySubsequences: false).map {
                Int($0.trimmingCharacters(in: .whitespaces))
            }
            guard parts.count == 4, let x = parts[0], let y = parts[1], let width = parts[2], let height = parts[3]
            else { return nil }
            return MosaicGrid.Region(x: x, y: y, width: width, height: height)
        }

        func run() async throws {
            let bytes = try DocumentFile.readBytes(input, limit: DocumentLimits.maximumFileBytes)
            var document: EmojiArtDocument
            var format = to
            let imageData: Data
            let info: ImageInfo
            let target: String
            if !Self.isDocument(bytes) {
                guard let output else {
                    throw ValidationError("Name the document to write: emojiart mosaic \(input) OUT.emojiart")
                }
                guard bytes.count <= DocumentLimits.maximumImageBytes else {
                    throw FileError(
                        path: input, reason: "a background image is at most \(DocumentLimits.maximumImageBytes) bytes.")
                }
                do {
                    info = try ImageDecoder.decode(Data(bytes))
                } catch let error as EmojiArtError {
                    throw FileError(path: input, reason: error.description)
                }
                imageData = Data(bytes)
                document = try EmojiArtDocument(title: DocumentFile.title(forFileAt: output))
                try document.apply(.setBackground(.image(data: imageData, mimeType: info.mimeType)))
                target = output
            } else {
                let decoded = try DocumentFile.read(input)
                document = decoded.document
                format = decoded.format
                target = output ?? input
                guard let image = try await BackgroundImage.load(of: document, fetching: true) else {
                    throw FileError(path: input, reason: "the document has no background picture to make a mosaic of.")
                }
                (imageData, info) = (image.data, image.info)
            }
            let recipe = MosaicRecipe(
                columns: columns, region: region.flatMap(Self.region), emojis: try await emojiSet(),
                options: MosaicOptions(dither: dither))
            _ = try recipe.grid(pictureWidth: info.width, pictureHeight: info.height)  // refused before decoding
            guard let table = EmojiSignatureTable.bundled else {
                throw CommandFailure("The emoji signature table is missing from this installation.")
            }
            let mosaic = try recipe.make(from: try ImageDecoder.bitmap(imageData), table: table)
            let grid = mosaic.grid
            for edit in try mosaic.edits(for: document, replace: replace) { try document.apply(edit) }
            try DocumentFile.write(document, to: target, as: format)
            say(
                "Wrote \(target): a \(grid.columns) × \(grid.rows) mosaic of \(mosaic.emojiCount) emojis, \(grid.emojiSize) points each."
            )
        }

        /// The emojis --emojis or --palette names; nil for all.
        private func emojiSet() async throws -> [String]? {
            if let emojis { return try MosaicEmojiSet.parse(emojis) }
            guard let palette else { return nil }
            let palettes = try await store.library(of: owner.user).palettes()
            guard
                let found = palettes.first(where: {
                    $0.name == palette || $0.id.uuidString.lowercased() == palette.lowercased()
                })
            else {
                throw CommandFailure(
                    "There is no palette \"\(palette.prefix(64))\"; `emojiart palettes list` shows them.")
            }
            return try MosaicEmojiSet.parse(found.emojis)
        }
    }
}
