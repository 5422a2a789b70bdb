import EmojiArtKit
import Foundation

/// `Tests/Fixtures`, found from this file so tests run from any working directory.
let fixturesDirectory = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fixtures")

func fixture(_ name: String) throws -> [UInt8] {
    Array(try Data(contentsOf: fixturesDirectory.appendingPathComponent(name)))
}

/// A document with emojis 1...count at distinct positions.
func makeDocument(emojiCount: Int, title: String = "Test") throws -> EmojiArtDocument {
    let texts = ["😀", "🚚", "🐻‍❄️", "🇫🇷", "👍🏽", "☀️"]
    let emojis = (0..<emojiCount).map {
        Emoji(
            id: $0 + 1, text: texts[$0 % texts.count], position: Point(x: $0 * 3 - 500, y: 250 - $0 * 2),
            size: 20 + $0 % 60)
    }
    return try EmojiArtDocument(title: title, emojis: emojis, nextEmojiID: emojiCount + 1)
}

let pngBytes = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13])
