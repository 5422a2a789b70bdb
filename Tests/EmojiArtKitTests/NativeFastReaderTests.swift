import Foundation
import PropertyBased
import Testing

@testable import EmojiArtKit

/// The native reader's fast path (issue #21) must agree with the general reader on every input:
/// it reads what our writer writes, and anything else it either reads exactly as the general
/// reader does or leaves to it.
@Suite("The native fast reader agrees with the general reader")
struct NativeFastReaderTests {
    static let texts = ["😀", "🚚", "👨‍👩‍👧‍👦", "🇫🇷", "👍🏽", "☀️", "🐻‍❄️", "1️⃣", "🌲", "🎹", "😀"]

    /// A document from random numbers: emojis of varied texts, places, sizes and turns, some
    /// locked, ids with gaps, and a title that may need escapes.
    static func document(_ numbers: [Int], title: String) throws -> EmojiArtDocument {
        var id = 0
        let emojis = numbers.enumerated().map { index, number in
            id += 1 + number % 3
            return Emoji(
                id: id, text: texts[number % texts.count],
                position: Point(x: number % 20_001 - 10_000, y: -number % 777),
                size: 1 + number % 1024, rotation: index % 3 == 0 ? number % 360 : 0, locked: number % 4 == 1)
        }
        return try EmojiArtDocument(
            title: title, background: numbers.count % 2 == 0 ? .url(URL(string: "https://example.com/a.png")!) : .none,
            emojis: emojis, nextEmojiID: id + 1 + (numbers.first ?? 0) % 5)
    }

    /// `bytes` with whitespace put after structural characters, as a pretty printer would.
    static func spaced(_ bytes: [UInt8], _ spaces: [Int]) -> [UInt8] {
        var result: [UInt8] = []
        var inString = false
        var escaped = false
        var count = 0
        for byte in bytes {
            result.append(byte)
            if inString, escaped {
                escaped = false
                continue
            }
            if inString, byte == UInt8(ascii: "\\") { escaped = true }
            if byte == UInt8(ascii: "\"") { inString.toggle() }
            if !inString, [UInt8(ascii: ","), UInt8(ascii: ":"), UInt8(ascii: "{"), UInt8(ascii: "[")].contains(byte) {
                count += 1
                let kind = spaces.isEmpty ? 0 : spaces[count % spaces.count]
                result += [[], [0x20], [0x0A, 0x20, 0x20], [0x09], [0x0D, 0x0A]][kind % 5]
            }
        }
        return result
    }

    @Test func everythingOurWriterWritesIsReadFastAndAlike() async {
        await propertyCheck(
            count: 200, input: Gen.int(in: 0...1_000_000).array(of: 0...60), Gen.int(in: 0...4).array(of: 0...8),
            Gen.element(of: ["Plain", "Quote \" and \\ slash", "Zero\u{200D}width", "Mangled 🎉", "日本語"])
        ) { numbers, spaces, title in
            guard let document = try? Self.document(numbers, title: title ?? "Plain") else {
                Issue.record("the generated document is invalid")
                return
            }
            let bytes = Self.spaced(EmojiArtFile.write(document, as: .native).bytes, spaces)
            let general = try? EmojiArtFile.readTree(bytes, defaultTitle: "Untitled").document
            #expect(general == document)
            let fast = NativeFastReader.read(bytes, defaultTitle: "Untitled")
            if title?.contains("\\") == true {
                #expect(fast == nil, "an escaped title is left to the general reader")
            } else {
                #expect(fast == document)
            }
        }
    }

    /// For mangled files the fast reader gives nil or the general reader's document, never a
    /// document the general reader refuses or reads otherwise.
    @Test func mangledFilesAreReadAlikeOrLeftToTheGeneralReader() async throws {
        let file = EmojiArtFile.write(try makeDocument(emojiCount: 20, title: "Mangled"), as: .native).bytes
        await propertyCheck(
            count: 1_000, input: Gen.int(in: 0...1_000_000).array(of: 1...4), Gen.uint8().array(of: 1...4)
        ) { steps, bytes in
            let mangled = ReaderPropertyTests.mangle(file, steps: steps, bytes: bytes)
            guard let fast = NativeFastReader.read(mangled, defaultTitle: "Untitled") else { return }
            #expect(fast == (try? EmojiArtFile.readTree(mangled, defaultTitle: "Untitled"))?.document)
        }
    }

    @Test(arguments: [
        // A key the fast reader doesn't know, in the root and in an emoji.
        #"{"format":"emojiart","formatVersion":1,"title":"T","extra":1,"emojis":[],"uniqueEmojiId":0}"#,
        #"{"format":"emojiart","formatVersion":1,"emojis":[{"string":"😀","position":{"x":1,"y":2},"size":40,"id":1,"note":"x"}],"uniqueEmojiId":1}"#,
        // A whole number written as a fraction, which the general reader takes.
        #"{"format":"emojiart","formatVersion":1,"emojis":[{"string":"😀","position":{"x":1.0,"y":2},"size":40,"id":1}],"uniqueEmojiId":1}"#,
        // An escape in an emoji's text.
        #"{"format":"emojiart","formatVersion":1,"emojis":[{"string":"\ud83d\ude00","position":{"x":1,"y":2},"size":40,"id":1}],"uniqueEmojiId":1}"#,
        // A key given twice: the general reader takes the last.
        #"{"format":"emojiart","formatVersion":1,"title":"A","title":"B","emojis":[],"uniqueEmojiId":0}"#,
    ])
    func unusualButValidFilesAreLeftToTheGeneralReader(_ text: String) throws {
        let bytes = Array(text.utf8)
        #expect(NativeFastReader.read(bytes, defaultTitle: "Untitled") == nil)
        let decoded = try EmojiArtFile.read(bytes)
        #expect(decoded.format == .native)
    }

    @Test(arguments: [
        #"{"format":"emojiart","formatVersion":2,"emojis":[],"uniqueEmojiId":0}"#,
        #"{"format":"emojiart","formatVersion":1,"emojis":[{"string":"ab","position":{"x":1,"y":2},"size":40,"id":1}],"uniqueEmojiId":1}"#,
        #"{"format":"emojiart","formatVersion":1,"emojis":[{"string":"😀","position":{"x":1,"y":2},"size":0,"id":1}],"uniqueEmojiId":1}"#,
        #"{"format":"emojiart","formatVersion":1,"emojis":[{"string":"😀","position":{"x":1,"y":2},"size":4,"id":1},{"string":"😀","position":{"x":1,"y":2},"size":4,"id":1}],"uniqueEmojiId":1}"#,
        #"{"format":"emojiart","formatVersion":1,"emojis":[{"string":"😀","position":{"x":1,"y":2},"size":4,"id":1}],"uniqueEmojiId":1} x"#,
    ])
    func invalidFilesGetTheGeneralReadersErrorWithItsPath(_ text: String) {
        let bytes = Array(text.utf8)
        #expect(NativeFastReader.read(bytes, defaultTitle: "Untitled") == nil)
        #expect(throws: EmojiArtError.self) { try EmojiArtFile.read(bytes) }
    }

    @Test func aFileWithoutATitleTakesTheDefaultTitle() throws {
        let bytes = Array(#"{"format":"emojiart","formatVersion":1,"emojis":[],"uniqueEmojiId":0}"#.utf8)
        #expect(NativeFastReader.read(bytes, defaultTitle: "From the name")?.title == "From the name")
        #expect(try EmojiArtFile.read(bytes, defaultTitle: "From the name").document.title == "From the name")
    }
}
