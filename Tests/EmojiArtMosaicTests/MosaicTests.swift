import EmojiArtImaging
import EmojiArtKit
import EmojiArtTestSupport
import Foundation
import Testing

@testable import EmojiArtMosaic

/// A picture of one colour (straight sRGB and alpha), premultiplied BGRA as the decoder gives.
func picture(
    width: Int, height: Int, color: (Int, Int, Int, Int) = (255, 0, 0, 255),
    at: ((Int, Int) -> (Int, Int, Int, Int))? = nil
)
    -> Bitmap
{
    var pixels = [UInt8](repeating: 0, count: width * height * 4)
    for y in 0..<height {
        for x in 0..<width {
            let (r, g, b, a) = at?(x, y) ?? color
            let offset = (y * width + x) * 4
            pixels[offset] = UInt8(b * a / 255)
            pixels[offset + 1] = UInt8(g * a / 255)
            pixels[offset + 2] = UInt8(r * a / 255)
            pixels[offset + 3] = UInt8(a)
        }
    }
    return Bitmap(width: width, height: height, pixels: pixels)
}

func table() throws -> EmojiSignatureTable { try #require(EmojiSignatureTable.bundled) }

@Suite struct ColourTests {
    @Test func whiteIsLightnessOne() {
        let white = OKLab.white
        #expect(abs(white.l - 1) < 1e-3 && abs(white.a) < 1e-3 && abs(white.b) < 1e-3)
    }

    @Test func oklabRoundTrips() {
        for (r, g, b) in [(255, 0, 0), (12, 200, 99), (0, 0, 0), (128, 128, 128)] {
            let light = LinearRGB(srgb: UInt8(r), UInt8(g), UInt8(b))
            let back = OKLab(light).linear.srgb
            #expect(Int(back.red) == r && Int(back.green) == g && Int(back.blue) == b)
        }
    }

    @Test func redIsRedder() {
        let red = OKLab(LinearRGB(srgb: 255, 0, 0))
        #expect(red.a > 0.2)
        #expect(abs(red.l - 0.628) < 0.01)
    }
}

@Suite struct NearestNeighbourTests {
    @Test func agreesWithComparingEveryPoint() {
        var random = SystemRandomNumberGenerator()
        for dimensions in [3, 12] {
            let points = (0..<500).map { _ in (0..<dimensions).map { _ in Double.random(in: -1...1, using: &random) } }
            let tree = NearestNeighbours(points: points, dimensions: dimensions)
            for _ in 0..<200 {
                let query = (0..<dimensions).map { _ in Double.random(in: -1.2...1.2, using: &random) }
                var distances: [(index: Int, distance: Double)] = []
                for (index, point) in points.enumerated() {
                    var sum = 0.0
                    for axis in 0..<dimensions { sum += (point[axis] - query[axis]) * (point[axis] - query[axis]) }
                    distances.append((index, sum))
                }
                distances.sort { $0.distance < $1.distance || ($0.distance == $1.distance && $0.index < $1.index) }
                let found = tree.nearest(query, count: 4)
                #expect(found.map { $0.index } == distances.prefix(4).map { $0.index })
            }
        }
    }

    @Test func anApproximateSearchIsWithinItsFactor() {
        var random = SplitMix64(seed: 35)
        let points = (0..<800).map { _ in (0..<12).map { _ in Double.random(in: -1...1, using: &random) } }
        let tree = NearestNeighbours(points: points, dimensions: 12)
        for _ in 0..<300 {
            let query = (0..<12).map { _ in Double.random(in: -3...3, using: &random) }
            let exact = tree.nearest(query)[0].distanceSquared.squareRoot()
            let found = tree.nearest(query, approximation: 0.05)[0].distanceSquared.squareRoot()
            #expect(found >= exact && found <= exact * 1.05 + 1e-12)
        }
    }

    @Test func fewerPointsThanAsked() {
        let tree = NearestNeighbours(points: [[0], [2]], dimensions: 1)
        #expect(tree.nearest([1.9], count: 5).map(\.index) == [1, 0])
    }
}

@Suite struct GridTests {
    @Test func aRegularGridCentredOnThePicture() throws {
        let grid = try MosaicGrid(pictureWidth: 100, pictureHeight: 80, columns: 10)
        #expect(grid.pitch == 10 && grid.rows == 8)
        // The top-left cell's centre is 5 pixels in: document (-45, 35).
        #expect(grid.origin == Point(x: -45, y: 35))
        #expect(grid.centre(column: 9, row: 7) == Point(x: 45, y: -35))
        #expect(grid.covers(Point(x: -50, y: 40)) && grid.covers(Point(x: 49, y: -39)))
        #expect(!grid.covers(Point(x: 50, y: 0)) && !grid.covers(Point(x: 0, y: -40)))
    }

    @Test func aRegion() throws {
        let grid = try MosaicGrid(
            pictureWidth: 200, pictureHeight: 100, region: .init(x: 100, y: 0, width: 100, height: 50), columns: 20)
        #expect(grid.pitch == 5 && grid.rows == 10)
        #expect(grid.origin == Point(x: 3, y: 48))  // pixel (102.5, 2.5): document (2.5, 47.5), rounded away from 0
    }

    @Test func manyColumnsOnASmallPictureStillCoverIt() throws {
        // 280 columns over 400 pixels: cells of 1.43 points, 210 rows, edge to edge.
        let grid = try MosaicGrid(pictureWidth: 400, pictureHeight: 300, columns: 280)
        #expect(grid.rows == 210 && grid.emojiSize == 1)
        #expect(grid.centre(column: 0, row: 0) == Point(x: -199, y: 149))
        #expect(grid.centre(column: 279, row: 209) == Point(x: 199, y: -149))
        // Whole points, each within half a point of the exact grid: steps of 1 or 2.
        let steps = Set((1..<280).map { grid.centre(column: $0, row: 0).x - grid.centre(column: $0 - 1, row: 0).x })
        #expect(steps == [1, 2])
        let odd = try MosaicGrid(pictureWidth: 64, pictureHeight: 48, columns: 10)
        #expect(odd.pitch == 6.4 && odd.emojiSize == 6 && odd.rows == 8)
    }

    @Test func badInputIsRefusedBeforeAnyWork() {
        #expect(throws: EmojiArtError.self) { try MosaicGrid(pictureWidth: 100, pictureHeight: 100, columns: 9) }
        #expect(throws: EmojiArtError.self) { try MosaicGrid(pictureWidth: 100, pictureHeight: 100, columns: 301) }
        for region in [
            MosaicGrid.Region(x: -1, y: 0, width: 10, height: 10), .init(x: 95, y: 0, width: 10, height: 10),
            .init(x: 0, y: 0, width: 0, height: 10), .init(x: 0, y: 100, width: 10, height: 1),
        ] {
            let error = #expect(throws: EmojiArtError.self) {
                try MosaicGrid(pictureWidth: 100, pictureHeight: 100, region: region, columns: 10)
            }
            #expect(error?.code == .outOfRange)
        }
        let tooMany = #expect(throws: EmojiArtError.self) {
            try MosaicGrid(pictureWidth: 3000, pictureHeight: 3000, columns: 300)
        }
        #expect(tooMany?.code == .tooLarge)
        let huge = #expect(throws: EmojiArtError.self) {
            try MosaicGrid(pictureWidth: 20000, pictureHeight: 100, columns: 10)
        }
        #expect(huge?.code == .outOfRange)
    }
}

@Suite struct SignatureTests {
    @Test func aRedSquareIsRedAndFillsItsCell() throws {
        let square = try EmojiSignature.measure("🟥")
        #expect(square.whole.coverage > 0.7)
        #expect(square.whole.color.distance(to: OKLab(LinearRGB(srgb: 255, 0, 0))) < 0.15)
        let dot = try EmojiSignature.measure("·")
        #expect(dot.whole.coverage < 0.05)
    }

    @Test func theCommittedTableIsTheFontsRendering() throws {
        let table = try table()
        #expect(table.count > 3_500)
        for text in ["😀", "🟥", "🌲", "🇩🇪", "👍🏽"] {
            #expect(table.contains(text))
            let stored = try table.signature(of: text)
            let measured = try EmojiSignature.measure(text)
            #expect(stored.whole.color.distance(to: measured.whole.color) < 0.002, "\(text)")
            #expect(abs(stored.whole.coverage - measured.whole.coverage) < 0.002, "\(text)")
        }
    }

    @Test func anEmojiTheTableLacksIsMeasured() throws {
        let table = try table()
        #expect(!table.contains("🐕‍🦺🏽"))
        _ = try table.signature(of: "🧑🏽‍🦰")
    }
}

@Suite struct EmojiSetTests {
    @Test func allLeavesOutFlagsKeycapsTonesAndTextLikeSymbols() throws {
        let all = Set(MosaicEmojiSet.all(in: try #require(EmojiCatalogue.bundled)))
        for included in ["😀", "🟥", "🌲", "⬛", "❤️"] { #expect(all.contains(included), "\(included)") }
        for excluded in ["🇩🇪", "🏁", "#️⃣", "👍🏽", "🔤", "➡️", "‼️", "➕", "💲", "▶️", "™️", "♀️", "🏻"] {
            #expect(!all.contains(excluded), "\(excluded)")
        }
    }

    @Test func typedEmojis() throws {
        #expect(try MosaicEmojiSet.parse("🐶, 🐱 🐶\n🇩🇪") == ["🐶", "🐱", "🇩🇪"])
        for bad in ["", "  ,", "🐶a"] {
            let error = #expect(throws: EmojiArtError.self) { try MosaicEmojiSet.parse(bad) }
            #expect(error?.code == .invalidEmoji)
        }
    }
}

@Suite struct BuilderTests {
    @Test func aRedPictureIsRedSquares() throws {
        let grid = try MosaicGrid(pictureWidth: 100, pictureHeight: 100, columns: 10)
        let palette = try MosaicPalette(
            texts: MosaicEmojiSet.all(in: try #require(EmojiCatalogue.bundled)), table: table())
        let mosaic = MosaicBuilder.build(picture(width: 100, height: 100), grid: grid, palette: palette)
        #expect(mosaic.texts[Int(mosaic.cells[0])] == "🟥")
        #expect(mosaic.emojiCount == 100)
        let emojis = mosaic.emojis
        #expect(emojis.count == 100 && emojis.allSatisfy { $0.size == 10 })
        #expect(emojis[0].position == Point(x: -45, y: 45) && emojis[99].position == Point(x: 45, y: -45))
    }

    @Test func mostlyTransparentCellsStayEmpty() throws {
        // The left half is opaque red; the right half 30% red.
        let bitmap = picture(width: 100, height: 50) { x, _ in x < 50 ? (255, 0, 0, 255) : (255, 0, 0, 76) }
        let grid = try MosaicGrid(pictureWidth: 100, pictureHeight: 50, columns: 10)
        let mosaic = MosaicBuilder.build(
            bitmap, grid: grid, palette: try MosaicPalette(texts: ["🟥", "🔴"], table: table()))
        for row in 0..<grid.rows {
            for column in 0..<grid.columns {
                #expect((mosaic.cells[row * grid.columns + column] >= 0) == (column < 5))
            }
        }
    }

    @Test func whiteGroundStaysEmpty() throws {
        // A chart: a red bar on opaque white. The white is the canvas, not the faintest emoji.
        let chart = picture(width: 100, height: 100) { x, _ in x < 30 ? (220, 30, 30, 255) : (255, 255, 255, 255) }
        let grid = try MosaicGrid(pictureWidth: 100, pictureHeight: 100, columns: 10)
        let palette = try #require(MosaicPalette.all)
        let mosaic = MosaicBuilder.build(chart, grid: grid, palette: palette)
        for row in 0..<10 {
            for column in 0..<10 { #expect((mosaic.cells[row * 10 + column] >= 0) == (column < 3)) }
        }
        let filled = MosaicBuilder.build(
            chart, grid: grid, palette: palette, options: MosaicOptions(leavesWhiteEmpty: false))
        #expect(filled.emojiCount == 100)
    }

    @Test func runsGiveWayToAnEmojiAsClose() throws {
        // Two emojis that look alike in a flat area: neighbours differ where one is as close.
        let grid = try MosaicGrid(pictureWidth: 100, pictureHeight: 100, columns: 10)
        let bitmap = picture(width: 100, height: 100, color: (255, 0, 0, 255))
        let same = try EmojiSignature.measure("🟥")
        var twin = same
        twin.text = "🟥twin"
        let palette = try MosaicPalette(signatures: [same, twin])
        let varied = MosaicBuilder.build(bitmap, grid: grid, palette: palette)
        #expect(Set(varied.cells).count == 2)
        #expect(varied.cells[0] != varied.cells[1])
        let flat = MosaicBuilder.build(bitmap, grid: grid, palette: palette, options: MosaicOptions(avoidsRuns: false))
        #expect(Set(flat.cells) == [0])
    }

    @Test func ditheringMixesTwoEmojisInProportion() throws {
        let grid = try MosaicGrid(pictureWidth: 200, pictureHeight: 200, columns: 20)
        let grey = picture(width: 200, height: 200, color: (150, 150, 150, 255))
        let palette = try MosaicPalette(texts: ["⬛", "⬜"], table: table())
        let plain = MosaicBuilder.build(grey, grid: grid, palette: palette)
        #expect(Set(plain.cells).count == 1)
        let dithered = MosaicBuilder.build(grey, grid: grid, palette: palette, options: MosaicOptions(dither: true))
        let dark = dithered.cells.filter { $0 == 0 }.count
        #expect(dark > 40 && dark < 360)
        // The mixture's mean lightness is near the grey's.
        let means = try ["⬛", "⬜"].map { try table().signature(of: $0).whole.onWhite.l }
        let mean = (Double(dark) * means[0] + Double(400 - dark) * means[1]) / 400
        #expect(abs(mean - OKLab(LinearRGB(srgb: 150, 150, 150)).l) < 0.03)
    }

    @Test func theMosaicIsOneUndoableStepThatReplacesWhatWasThere() throws {
        var document = try EmojiArtDocument()
        try document.apply(.addEmoji(text: "🐶", position: Point(x: 0, y: 0), size: 40))
        try document.apply(.addEmoji(text: "🐱", position: Point(x: 500, y: 0), size: 40))
        let grid = try MosaicGrid(pictureWidth: 100, pictureHeight: 100, columns: 10)
        let mosaic = MosaicBuilder.build(
            picture(width: 100, height: 100), grid: grid, palette: try MosaicPalette(texts: ["🟥"], table: table()))
        var session = EditingSession(document: document)
        try session.perform(try mosaic.edits(for: document, replace: true))
        #expect(session.history.undoActionName == "Make Mosaic")
        #expect(session.document.emojis.count == 101)
        #expect(!session.document.emojis.contains { $0.text == "🐶" })
        try session.undo()
        #expect(session.document.emojis == document.emojis)  // ids are never reused: the counter stays
        let kept = try mosaic.edits(for: document, replace: false)
        #expect(kept.count == 1)
        // A locked emoji in the area is finished work: the mosaic goes round it.
        var locked = document
        try locked.apply(.setLocked(ids: [1], locked: true))
        var lockedSession = EditingSession(document: locked)
        try lockedSession.perform(try mosaic.edits(for: locked, replace: true))
        #expect(lockedSession.document.emojis[id: 1]?.text == "🐶" && lockedSession.document.emojis.count == 102)
    }

    @Test func aPreviewPictureAndItsError() throws {
        let grid = try MosaicGrid(pictureWidth: 100, pictureHeight: 100, columns: 10)
        let bitmap = picture(width: 100, height: 100)
        let mosaic = MosaicBuilder.build(
            bitmap, grid: grid, palette: try MosaicPalette(texts: ["🟥", "🟦"], table: table()))
        let preview = try mosaic.picture(maximumSide: 200)
        #expect(preview.width == 200 && preview.height == 200)
        let decoded = try ImageDecoder.bitmap(Data(preview.png))
        #expect(decoded.width == 200)
        let error = try mosaic.pictureError(against: PictureSamples(bitmap: bitmap, grid: grid))
        #expect(error < 0.15)
    }
}

@Suite struct QualityTests {
    /// Issue #35: quadrant matching reproduces every sample photo better than mean colours do
    /// (per quarter cell: what quadrants can get right and mean colours can't).
    @Test(arguments: SamplePhotos.names)
    func quadrantsBeatMeanColours(photo name: String) throws {
        let photo = SamplePhotos.photo(name, width: 240, height: 180)
        let grid = try MosaicGrid(pictureWidth: 240, pictureHeight: 180, columns: 40)
        let palette = try MosaicPalette(
            texts: MosaicEmojiSet.all(in: try #require(EmojiCatalogue.bundled)), table: table())
        let samples = PictureSamples(bitmap: photo, grid: grid)
        let mean = MosaicBuilder.build(samples, grid: grid, palette: palette, options: MosaicOptions(matching: .mean))
        let quadrants = MosaicBuilder.build(samples, grid: grid, palette: palette, options: MosaicOptions())
        let meanError = try mean.pictureError(against: samples)
        let quadrantError = try quadrants.pictureError(against: samples)
        #expect(quadrantError < meanError, "\(name): \(quadrantError) vs \(meanError)")
        #expect(quadrantError < 0.25, "\(name)")  // dark pictures are hardest: white shows between emojis
    }
}

@Suite struct TextOfMosaicsTests {
    /// Issue #35: a mosaic's text export has every emoji in its cell, whatever the cells'
    /// fractional side (the emojis' sizes rounded up or down, their places to whole points).
    @Test(arguments: [15, 60, 100, 140, 150])
    func everyCellOfAMosaicIsInItsText(columns: Int) throws {
        let grid = try MosaicGrid(pictureWidth: 160, pictureHeight: 120, columns: columns)
        let mosaic = MosaicBuilder.build(
            picture(width: 160, height: 120) { x, y in (x * 255 / 159, y * 2, 120, 255) }, grid: grid,
            palette: try MosaicPalette(texts: ["🟥", "🟧", "🟨", "🟩", "🟦", "🟪", "⬛", "⬜"], table: table()))
        let emojis = mosaic.emojis.enumerated().map {
            Emoji(id: $0.offset, text: $0.element.text, position: $0.element.position, size: $0.element.size)
        }
        let text = EmojiTextGrid(emojis)
        #expect(text.rows.count == grid.rows, "pitch \(grid.pitch)")
        #expect(text.rows.allSatisfy { $0.count == grid.columns }, "pitch \(grid.pitch)")
        #expect(text.rows.joined().compactMap { $0 }.count == emojis.count, "pitch \(grid.pitch)")
    }
}
