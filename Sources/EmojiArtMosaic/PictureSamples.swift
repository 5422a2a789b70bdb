import EmojiArtImaging

/// The picture as the mosaic sees it: for every cell of a grid, its colour on white and in each
/// quarter (OKLab), and how much of it the picture covers (alpha; 0 beyond the picture's edges).
public struct PictureSamples: Sendable {
    public var columns: Int
    public var rows: Int
    /// Row by row: each cell's whole and its quarters (top left, top right, bottom left, bottom
    /// right), as they look on white.
    public var cells: [Cell]

    public struct Cell: Sendable {
        public var whole: OKLab
        public var quadrants: [OKLab]
        public var coverage: Double
    }

    /// Averages the pixels under each quarter cell, in linear light (a quarter smaller than a
    /// pixel takes the pixel at its centre).
    public init(bitmap: Bitmap, grid: MosaicGrid) {
        // A grid made for another size samples this picture as far as it reaches (pixels
        // outside it are transparent); ``MosaicRecipe`` makes the grid from the bitmap itself.
        columns = grid.columns
        rows = grid.rows
        cells = []
        cells.reserveCapacity(grid.cellCount)
        let half = grid.pitch / 2
        bitmap.pixels.withUnsafeBufferPointer { pixels in
            for row in 0..<grid.rows {
                for column in 0..<grid.columns {
                    let corner = grid.pixelCorner(column: column, row: row)
                    var quarters: [LinearRGB] = []
                    var coverage = 0.0
                    for quarter in 0..<4 {
                        let x0 = corner.x + Double(quarter % 2) * half
                        let y0 = corner.y + Double(quarter / 2) * half
                        let sample = Self.average(pixels, bitmap.width, bitmap.height, x0, y0, x0 + half, y0 + half)
                        quarters.append(sample.light)
                        coverage += sample.coverage / 4
                    }
                    let mean = LinearRGB(
                        r: quarters.reduce(0) { $0 + $1.r } / 4, g: quarters.reduce(0) { $0 + $1.g } / 4,
                        b: quarters.reduce(0) { $0 + $1.b } / 4)
                    cells.append(Cell(whole: OKLab(mean), quadrants: quarters.map(OKLab.init), coverage: coverage))
                }
            }
        }
    }

    /// The light of the rectangle [x0, x1) × [y0, y1) laid on white, and its mean alpha.
    private static func average(
        _ pixels: UnsafeBufferPointer<UInt8>, _ width: Int, _ height: Int, _ x0: Double, _ y0: Double, _ x1: Double,
        _ y1: Double
    ) -> (light: LinearRGB, coverage: Double) {
        // The pixels whose centres fall inside; at least the one under the centre.
        var left = Int((x0 - 0.5).rounded(.up))
        var right = Int((x1 - 0.5).rounded(.up))
        var top = Int((y0 - 0.5).rounded(.up))
        var bottom = Int((y1 - 0.5).rounded(.up))
        if right <= left {
            left = Int(((x0 + x1) / 2).rounded(.down))
            right = left + 1
        }
        if bottom <= top {
            top = Int(((y0 + y1) / 2).rounded(.down))
            bottom = top + 1
        }
        let area = Double((right - left) * (bottom - top))
        var (r, g, b, alpha) = (0.0, 0.0, 0.0, 0.0)
        for y in max(top, 0)..<min(bottom, height) where left < width && right > 0 {
            var offset = (y * width + max(left, 0)) * 4
            for _ in max(left, 0)..<min(right, width) {
                let a = pixels[offset + 3]
                if a > 0 {
                    let light = EmojiSignature.unpremultiplied(
                        blue: pixels[offset], green: pixels[offset + 1], red: pixels[offset + 2], alpha: a)
                    let weight = Double(a) / 255
                    r += light.r * weight
                    g += light.g * weight
                    b += light.b * weight
                    alpha += weight
                }
                offset += 4
            }
        }
        let coverage = alpha / area
        return (LinearRGB(r: r / area + 1 - coverage, g: g / area + 1 - coverage, b: b / area + 1 - coverage), coverage)
    }
}
