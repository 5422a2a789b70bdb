import CEmojiRender
import EmojiArtImaging
import EmojiArtKit
import Foundation

extension Mosaic {
    /// The picture the mosaic makes on its own (emojis on white, drawn as the PNG export draws
    /// them), `cellPixels` a cell, or less so neither side passes `maximumSide`.
    public func picture(cellPixels: Double = 32, maximumSide: Int = 800) throws -> (
        png: [UInt8], width: Int, height: Int
    ) {
        let cell = min(cellPixels, Double(maximumSide) / Double(max(grid.columns, grid.rows)))
        let width = max(1, Int((Double(grid.columns) * cell).rounded()))
        let height = max(1, Int((Double(grid.rows) * cell).rounded()))
        let renderCells = filledCells.map {
            emoji_render_cell(text: $0.text, x: (Double($0.column) + 0.5) * cell, y: (Double($0.row) + 0.5) * cell)
        }
        let copies = texts.map { strdup($0) }
        defer { for copy in copies { free(copy) } }
        var png: UnsafeMutablePointer<UInt8>?
        var size = 0
        var message = [CChar](repeating: 0, count: 256)
        let status = copies.map { UnsafePointer($0) }.withUnsafeBufferPointer { texts in
            renderCells.withUnsafeBufferPointer { cells in
                emoji_render_grid_png(
                    Int32(width), Int32(height), texts.baseAddress, texts.count, cells.baseAddress, cells.count, cell,
                    &png, &size, &message, message.count)
            }
        }
        guard status == 0, let png else {
            let reason = String(cMessage: message)
            throw EmojiArtError(.invalidFile, "the mosaic could not be drawn: \(reason).")
        }
        defer { emoji_render_free(png) }
        return (Array(UnsafeBufferPointer(start: png, count: size)), width, height)
    }

    /// How far the mosaic's picture is from the photo: the mean ΔE (OKLab) between the two,
    /// both reduced to the grid — one colour per cell (`quarters` false) or per quarter cell —
    /// over the cells the photo covers, the mosaic drawn at `cellPixels` a cell on white, the
    /// photo laid on white. What `emojiart-bench mosaic` reports.
    public func pictureError(against samples: PictureSamples, quarters: Bool = true, cellPixels: Int = 16) throws
        -> Double
    {
        let drawn = try picture(cellPixels: Double(cellPixels), maximumSide: max(grid.columns, grid.rows) * cellPixels)
        let bitmap = try ImageDecoder.bitmap(Data(drawn.png))
        let cellGrid = try MosaicGrid(
            pictureWidth: bitmap.width, pictureHeight: bitmap.height, columns: grid.columns, maximumCells: Int.max)
        let reduced = PictureSamples(bitmap: bitmap, grid: cellGrid)
        var total = 0.0
        var counted = 0
        for (index, cell) in samples.cells.enumerated() where cell.coverage >= 0.5 && index < reduced.cells.count {
            let drawnCell = reduced.cells[index]
            if quarters {
                for quarter in 0..<4 { total += cell.quadrants[quarter].distance(to: drawnCell.quadrants[quarter]) / 4 }
            } else {
                total += cell.whole.distance(to: drawnCell.whole)
            }
            counted += 1
        }
        return counted == 0 ? 0 : total / Double(counted)
    }
}
