import EmojiArtKit
import Foundation
import PropertyBased
import Testing

/// Property-based tests of the readers (issue #20): whatever bytes arrive — random, or a real
/// file mangled — reading gives a typed ``EmojiArtError`` or a document within the limits that
/// writes and reads back the same; never a crash, never another error.
@Suite("Readers never crash on random or mangled input")
struct ReaderPropertyTests {
    /// Real files of every kind: the original apps' (both generations), ours, a palette list.
    static let documents: [[UInt8]] = {
        var files = ["2021-blank.emojiart", "2021-url.emojiart", "2023-empty.emojiart", "2023-url.emojiart"].compactMap
        {
            try? fixture($0)
        }
        if let document = try? makeDocument(emojiCount: 12, title: "Mangled 🎉") {
            files.append(EmojiArtFile.write(document, as: .native).bytes)
            files.append(EmojiArtFile.write(document, as: .cs193p2021).bytes)
            files.append(EmojiArtFile.write(document, as: .cs193p2023).bytes)
            // A picture with the document inside: the PNG reader's way in.
            files.append(PictureDocument.embed(document, in: Self.tinyPNG))
        }
        return files
    }()

    static let palettes: [[UInt8]] = ["palettes-2021-Default.json", "palettes-2023-Shared.json"].compactMap {
        try? fixture($0)
    }

    /// A 1×1 PNG (signature, IHDR, IDAT, IEND) to carry a document.
    static let tinyPNG: [UInt8] = [
        0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x48, 0x44, 0x52, 0x00, 0x00,
        0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1F, 0x15, 0xC4, 0x89, 0x00, 0x00, 0x00,
        0x0D, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9C, 0x63, 0xF8, 0xFF, 0xFF, 0x3F, 0x00, 0x05, 0xFE, 0x02, 0xFE, 0xA7,
        0x35, 0x81, 0x84, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82,
    ]

    /// Reads `bytes` as a document: an error must be an ``EmojiArtError``; a document must be
    /// one that writes and reads back unchanged.
    static func checkDocument(_ bytes: [UInt8]) {
        do {
            let decoded = try EmojiArtFile.read(bytes)
            let written = EmojiArtFile.write(decoded.document, as: .native).bytes
            let again = try EmojiArtFile.read(written)
            #expect(again.document == decoded.document, "a document read writes and reads back the same")
            #expect(decoded.document.emojis.count <= DocumentLimits.maximumEmojiCount)
            #expect(decoded.document.title.utf8.count <= DocumentLimits.maximumTitleBytes)
        } catch is EmojiArtError {
            // The typed refusal every reader gives.
        } catch {
            Issue.record("reading gave an untyped error: \(error)")
        }
    }

    static func checkPalettes(_ bytes: [UInt8]) {
        do {
            let palettes = try PaletteFile.read(bytes)
            #expect(try PaletteFile.read(PaletteFile.write(palettes)).map(\.name) == palettes.map(\.name))
        } catch is EmojiArtError {
        } catch {
            Issue.record("reading palettes gave an untyped error: \(error)")
        }
    }

    /// `file` with a few edits: a byte changed, bytes cut out, a byte put in, or the end cut off;
    /// `steps` says where and what, `bytes` what goes in.
    static func mangle(_ file: [UInt8], steps: [Int], bytes: [UInt8]) -> [UInt8] {
        var result = file
        for (index, step) in steps.enumerated() where !result.isEmpty {
            let at = step % result.count
            let byte = bytes.isEmpty ? 0x22 : bytes[index % bytes.count]
            switch (step / max(1, result.count)) % 4 {
            case 0: result[at] = byte
            case 1: result.removeSubrange(at..<min(result.count, at + 1 + Int(byte) % 16))
            case 2: result.insert(byte, at: at)
            default: result.removeSubrange(at...)
            }
        }
        return result
    }

    /// Bytes JSON readers meet: structure, quotes, escapes, digits, and anything at all.
    static let jsonish = Gen<UInt8?>.element(
        of: Array(#"{}[]":,\-+.0123456789eEtrufalsn u"#.utf8) + [0x00, 0xFF, 0xC3]
    )
    .map { $0 ?? 0x22 }

    @Test func randomBytesNeverCrashTheDocumentReader() async {
        await propertyCheck(count: 300, input: Gen.uint8().array(of: 0...400)) { bytes in
            Self.checkDocument(bytes)
        }
    }

    @Test func jsonLikeNoiseNeverCrashesTheDocumentReader() async {
        await propertyCheck(count: 300, input: Self.jsonish.array(of: 0...200)) { bytes in
            Self.checkDocument(bytes)
            Self.checkPalettes(bytes)
        }
    }

    @Test func mangledDocumentsAreReadOrRefusedWithATypedError() async {
        let files = Self.documents
        #expect(files.count >= 8)
        await propertyCheck(
            count: 400, input: Gen.int(in: 0...(files.count - 1)), Gen.int(in: 0...1_000_000).array(of: 1...6),
            Gen.uint8().array(of: 1...6)
        ) { which, steps, bytes in
            Self.checkDocument(Self.mangle(files[which], steps: steps, bytes: bytes))
        }
    }

    @Test func mangledPaletteFilesAreReadOrRefusedWithATypedError() async {
        let files = Self.palettes
        #expect(files.count == 2)
        await propertyCheck(
            count: 300, input: Gen.int(in: 0...(files.count - 1)), Gen.int(in: 0...1_000_000).array(of: 1...6),
            Gen.uint8().array(of: 1...6)
        ) { which, steps, bytes in
            Self.checkPalettes(Self.mangle(files[which], steps: steps, bytes: bytes))
        }
    }
}
