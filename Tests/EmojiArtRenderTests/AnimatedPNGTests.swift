import EmojiArtKit
import Foundation
import Testing

@testable import EmojiArtRender

@Suite("Replays as animated PNGs")
struct AnimatedPNGTests {
    func frames() throws -> [AnimatedPNG.Frame] {
        var document = try EmojiArtDocument(title: "Replay")
        var documents = [document]
        for x in 0..<3 {
            try document.apply(.addEmoji(text: "🐝", position: Point(x: x * 50, y: 0), size: 40))
            documents.append(document)
        }
        var frame = PictureFrame(document: documents[0], backgroundSize: nil)
        for other in documents { frame = frame.union(PictureFrame(document: other, backgroundSize: nil)) }
        return try documents.map {
            AnimatedPNG.Frame(
                png: try PNGRenderer.render($0, background: nil, embedsDocument: false, frame: frame).png,
                milliseconds: 100)
        }
    }

    @Test func framesJoinIntoOneAnimationWithValidChunks() throws {
        let pictures = try frames()
        let apng = try AnimatedPNG.assemble(pictures)
        let chunks = try AnimatedPNG.chunks(of: apng)
        #expect(chunks.first?.type == "IHDR")
        #expect(chunks[1].type == "acTL")
        #expect(Array(chunks[1].data[0..<4]) == AnimatedPNG.be32(pictures.count))
        #expect(chunks.filter { $0.type == "fcTL" }.count == pictures.count)
        #expect(chunks.last?.type == "IEND")
        // Sequence numbers run 0, 1, 2… across fcTL and fdAT chunks.
        let sequence = chunks.filter { $0.type == "fcTL" || $0.type == "fdAT" }.map {
            $0.data[0..<4].reduce(0) { $0 << 8 | Int($1) }
        }
        #expect(sequence == Array(0..<sequence.count))
        // Every chunk's CRC is right (a reader refuses the file otherwise).
        var offset = 8
        while offset < apng.count {
            let length = apng[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            let crc = apng[offset + 8 + length..<offset + 12 + length].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            #expect(AnimatedPNG.crc32(Array(apng[offset + 4..<offset + 8 + length])) == crc)
            offset += 12 + length
        }
    }

    @Test func framesOfDifferentSizesAreRefused() throws {
        var pictures = try frames()
        pictures.append(
            .init(
                png: try PNGRenderer.render(try EmojiArtDocument(), background: nil, embedsDocument: false).png,
                milliseconds: 10))
        #expect(throws: EmojiArtError.self) { try AnimatedPNG.assemble(pictures) }
        #expect(throws: EmojiArtError.self) { try AnimatedPNG.assemble([.init(png: [1, 2, 3], milliseconds: 1)]) }
    }
}
