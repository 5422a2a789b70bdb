import Foundation
import Testing

@testable import EmojiArtImaging

/// Premultiplied BGRA from straight (r, g, b, a) per pixel.
func bitmap(width: Int, height: Int, _ color: (Int, Int) -> (Int, Int, Int, Int)) -> Bitmap {
    var pixels: [UInt8] = []
    for y in 0..<height {
        for x in 0..<width {
            let (r, g, b, a) = color(x, y)
            pixels += [UInt8(b * a / 255), UInt8(g * a / 255), UInt8(r * a / 255), UInt8(a)]
        }
    }
    return Bitmap(width: width, height: height, pixels: pixels)
}

@Suite struct MedianCutTests {
    @Test func aFewColoursAreKeptAsTheyAre() {
        let picture = bitmap(width: 30, height: 10) { x, _ in
            x < 10 ? (255, 0, 0, 255) : x < 20 ? (0, 0, 255, 255) : (255, 255, 255, 255)
        }
        var palette = IndexedPalette(for: [picture])
        #expect(palette.count == 3)
        let indices = palette.indices(of: picture)
        for (x, expected) in [(0, (255, 0, 0)), (15, (0, 0, 255)), (25, (255, 255, 255))] {
            let entry = Int(indices[x]) * 3
            let rgb = (Int(palette.rgb[entry]), Int(palette.rgb[entry + 1]), Int(palette.rgb[entry + 2]))
            // 5 bits a channel: within 4 of the colour.
            #expect(abs(rgb.0 - expected.0) <= 4 && abs(rgb.1 - expected.1) <= 4 && abs(rgb.2 - expected.2) <= 4)
        }
    }

    @Test func transparentPixelsAreWhite() {
        let picture = bitmap(width: 4, height: 4) { _, _ in (0, 0, 0, 0) }
        var palette = IndexedPalette(for: [picture])
        let index = Int(palette.indices(of: picture)[0]) * 3
        #expect(palette.rgb[index] >= 248 && palette.rgb[index + 1] >= 248 && palette.rgb[index + 2] >= 248)
    }

    @Test func manyColoursBecome256CloseOnes() {
        let picture = bitmap(width: 256, height: 64) { x, y in (x, y * 4, 255 - x, 255) }
        var palette = IndexedPalette(for: [picture])
        #expect(palette.count == 256)
        let indices = palette.indices(of: picture)
        var total = 0.0
        var worst = 0.0
        picture.pixels.withUnsafeBufferPointer { pixels in
            for index in 0..<(256 * 64) {
                let source = OKLab(LinearRGB(srgb: pixels[index * 4 + 2], pixels[index * 4 + 1], pixels[index * 4]))
                let entry = Int(indices[index]) * 3
                let shown = OKLab(LinearRGB(srgb: palette.rgb[entry], palette.rgb[entry + 1], palette.rgb[entry + 2]))
                total += source.distance(to: shown)
                worst = max(worst, source.distance(to: shown))
            }
        }
        // Mean ΔE well under a just-noticeable difference (≈ 0.02).
        #expect(total / Double(256 * 64) < 0.02)
        #expect(worst < 0.06)
    }
}

@Suite struct GIFWriterTests {
    @Test func anAnimationThatLoopsAndReadsBack() throws {
        let red = bitmap(width: 20, height: 10) { _, _ in (255, 0, 0, 255) }
        let blue = bitmap(width: 20, height: 10) { x, _ in x < 10 ? (0, 0, 255, 255) : (255, 0, 0, 255) }
        let gif = try GIFWriter.write([.init(bitmap: red, milliseconds: 500), .init(bitmap: blue, milliseconds: 2000)])
        #expect(Array(gif.prefix(6)) == Array("GIF89a".utf8))
        let text = String(decoding: gif, as: UTF8.self)
        #expect(text.contains("NETSCAPE2.0"))
        // giflib reads every frame back; the first frame is red.
        let info = try ImageDecoder.decode(Data(gif))
        #expect(info.mimeType == "image/gif" && info.width == 20 && info.height == 10)
        let first = try ImageDecoder.bitmap(Data(gif))
        #expect(first.pixels[2] >= 250 && first.pixels[0] <= 5)
        // Each frame's delay, in hundredths of a second, in its graphic control extension.
        let delays = gif.indices.dropLast(5).filter { gif[$0] == 0x21 && gif[$0 + 1] == 0xF9 }.map {
            Int(gif[$0 + 4]) | Int(gif[$0 + 5]) << 8
        }
        #expect(delays == [50, 200])
    }

    @Test func aStillPictureHasNoLoop() throws {
        let gif = try GIFWriter.write([
            .init(bitmap: bitmap(width: 3, height: 3) { _, _ in (0, 255, 0, 255) }, milliseconds: 0)
        ])
        #expect(!String(decoding: gif, as: UTF8.self).contains("NETSCAPE2.0"))
        #expect(try ImageDecoder.decode(Data(gif)).width == 3)
    }

    @Test func framesOfDifferentSizesAreRefused() {
        #expect(throws: Error.self) {
            try GIFWriter.write([
                .init(bitmap: bitmap(width: 3, height: 3) { _, _ in (0, 0, 0, 255) }, milliseconds: 10),
                .init(bitmap: bitmap(width: 4, height: 3) { _, _ in (0, 0, 0, 255) }, milliseconds: 10),
            ])
        }
        #expect(throws: Error.self) { try GIFWriter.write([]) }
    }
}
