import EmojiArtKit
import Foundation

/// `Tests/Fixtures`, found from this file so tests run from any working directory.
let fixturesDirectory = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fixtures")

func fixture(_ name: String) throws -> [UInt8] {
    Array(try Data(contentsOf: fixturesDirectory.appendingPathComponent(name)))
}

/// A small deterministic generator (SplitMix64) so randomized tests print a seed that reproduces them.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
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
