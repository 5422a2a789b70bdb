import EmojiArtImaging
import EmojiArtKit
import EmojiArtMosaic
import EmojiArtTestSupport
import Foundation

/// Emoji mosaics (issue #35): on five photos drawn in code (``SamplePhotos``, 1200 × 900), the
/// time to build an 80 × 60 and a 300 × 225 mosaic from the decoded picture with "all" emojis
/// (sampling and matching; the median of several runs), and how far each mosaic's picture is from
/// the photo: mean ΔE in OKLab per quarter cell (and per cell) for mean-colour matching, quadrant
/// matching and quadrant matching with dithering.
enum MosaicBenchmarks {
    static func run(smoke: Bool, into report: inout Report) throws {
        guard let catalogue = EmojiCatalogue.bundled, let table = EmojiSignatureTable.bundled else {
            throw BenchmarkError("the emoji catalogue or signature table is missing")
        }
        let started = ContinuousClock.now
        let palette = try MosaicPalette(texts: MosaicEmojiSet.all(in: catalogue), table: table)
        report.add(
            "Mosaic palette \"all\" (\(palette.texts.count) emojis) indexed",
            "\(format(seconds(ContinuousClock.now - started) * 1000, 1)) ms")
        let (width, height) = smoke ? (120, 90) : (1200, 900)
        let sizes = smoke ? [(10, 8)] : [(80, 60), (300, 225)]
        let runs = smoke ? 1 : 5
        var quadrantsWin = true
        for name in SamplePhotos.names {
            let photo = SamplePhotos.photo(name, width: width, height: height)
            for (columns, _) in sizes {
                let grid = try MosaicGrid(
                    pictureWidth: width, pictureHeight: height, columns: columns, maximumCells: Int.max)
                var times: [Double] = []
                var mosaic: Mosaic?
                for _ in 0..<runs {
                    let start = ContinuousClock.now
                    mosaic = MosaicBuilder.build(photo, grid: grid, palette: palette)
                    times.append(seconds(ContinuousClock.now - start))
                }
                times.sort()
                let target = columns <= 80 ? "≤ 150 ms (issue #35)" : "≤ 1.5 s (issue #35)"
                // The editor's preview: the same mosaic drawn at most 800 pixels a side.
                let drawn = ContinuousClock.now
                let preview = try mosaic?.picture()
                let drawing = seconds(ContinuousClock.now - drawn)
                report.add(
                    "Mosaic \(name) \(grid.columns) × \(grid.rows) (\(mosaic?.emojiCount ?? 0) emojis), built",
                    "median \(format(times[times.count / 2] * 1000, 0)) ms of \(runs); its \(preview?.width ?? 0)-pixel preview drawn in \(format(drawing * 1000, 0)) ms",
                    target: target)
            }
            // Picture error at 80 columns (10 in the smoke run), for the three ways of matching.
            let grid = try MosaicGrid(
                pictureWidth: width, pictureHeight: height, columns: sizes[0].0, maximumCells: Int.max)
            let samples = PictureSamples(bitmap: photo, grid: grid)
            var errors: [String: (quarters: Double, cells: Double)] = [:]
            for (label, options) in [
                ("mean", MosaicOptions(matching: .mean)), ("quadrants", MosaicOptions(matching: .quadrants)),
                ("quadrants + dither", MosaicOptions(matching: .quadrants, dither: true)),
            ] {
                let mosaic = MosaicBuilder.build(samples, grid: grid, palette: palette, options: options)
                errors[label] = (
                    try mosaic.pictureError(against: samples, quarters: true),
                    try mosaic.pictureError(against: samples, quarters: false)
                )
            }
            let mean = errors["mean"]!
            let quadrants = errors["quadrants"]!
            let dithered = errors["quadrants + dither"]!
            quadrantsWin = quadrantsWin && quadrants.quarters < mean.quarters
            report.add(
                "Mosaic \(name) \(grid.columns) × \(grid.rows), mean ΔE per quarter cell (per cell)",
                "mean colour \(format(mean.quarters, 4)) (\(format(mean.cells, 4))), quadrants \(format(quadrants.quarters, 4)) (\(format(quadrants.cells, 4))), dithered \(format(dithered.quarters, 4)) (\(format(dithered.cells, 4)))",
                target: "quadrants < mean colour")
        }
        report.add("Mosaic: quadrant matching beats mean-colour matching on every photo", quadrantsWin ? "yes" : "NO")
    }
}
