import EmojiArtKit
import Foundation

/// Random edits of every kind for randomized tests, valid and invalid alike: unknown and
/// repeated ids, sizes, positions, turns and drawing-order places out of range, text that is not
/// an emoji, bad URLs, changes to locked emojis.
public enum RandomEdits {
    public static func edit(in document: EmojiArtDocument, using random: inout SplitMix64) -> Edit {
        let ids = document.emojis.ids
        func someIDs() -> [Int] {
            // Sometimes an unknown or repeated id, to make invalid edits.
            if ids.isEmpty || Int.random(in: 0..<12, using: &random) == 0 {
                return [Int.random(in: 0...500, using: &random)]
            }
            var chosen = Array(
                Set((0..<Int.random(in: 1...4, using: &random)).map { _ in ids.randomElement(using: &random)! }))
            if Int.random(in: 0..<25, using: &random) == 0 { chosen.append(chosen[0]) }
            return chosen
        }
        let texts = ["😀", "🚚", "👨‍👩‍👧‍👦", "🇯🇵", "a", "😀😀", "1️⃣"]
        switch Int.random(in: 0..<17, using: &random) {
        case 0:
            return .addEmoji(
                text: texts.randomElement(using: &random)!,
                position: Point(
                    x: Int.random(in: -1_100_000...1_100_000, using: &random),
                    y: Int.random(in: -1000...1000, using: &random)),
                size: Int.random(in: 0...1030, using: &random))
        case 1, 2:
            return .moveEmojis(
                ids: someIDs(),
                offset: Point(
                    x: Int.random(in: -300_000...300_000, using: &random), y: Int.random(in: -50...50, using: &random)))
        case 3:
            return .resizeEmojis(ids: someIDs(), scale: Double.random(in: -0.1...3, using: &random))
        case 4:
            return .deleteEmojis(ids: someIDs())
        case 5:
            let backgrounds: [Background] = [
                .none, .url(URL(string: "https://example.com/\(Int.random(in: 0..<9, using: &random)).png")!),
                .image(
                    data: Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13]), mimeType: "image/png"),
                .url(URL(string: "ftp://example.com/x.png")!),
            ]
            return .setBackground(backgrounds.randomElement(using: &random)!)
        case 6:
            return .retitle(["Party", "Beach 🏖", "", "Bad\ttitle", "Café"].randomElement(using: &random)!)
        case 8:
            return .reorder(ids: someIDs(), to: ReorderPlacement.allCases.randomElement(using: &random)!)
        case 9:
            return .rotate(
                ids: someIDs(),
                degrees: [15, -15, 90, 359, 360, 725, -1000, 400_000].randomElement(using: &random)!)
        case 10:
            // Sometimes an index out of range or taken twice.
            let chosen = someIDs()
            let count = max(1, ids.count + (Int.random(in: 0..<10, using: &random) == 0 ? 1 : 0))
            return .setEmojiOrder(chosen.map { EmojiIndex(id: $0, index: Int.random(in: 0..<count, using: &random)) })
        case 11:
            return .paste(
                (0..<Int.random(in: 0...3, using: &random)).map { _ in
                    NewEmoji(
                        text: texts.randomElement(using: &random)!,
                        position: Point(
                            x: Int.random(in: -1_100_000...1_100_000, using: &random),
                            y: Int.random(in: -1000...1000, using: &random)),
                        size: Int.random(in: 0...1030, using: &random),
                        rotation: [0, 0, 45, 359, 360].randomElement(using: &random)!)
                })
        case 12:
            return .duplicate(
                ids: someIDs(),
                offset: Point(x: Int.random(in: -20...20, using: &random), y: Int.random(in: -20...20, using: &random)))
        case 14:
            return .replaceEmoji(ids: someIDs(), text: texts.randomElement(using: &random)!)
        case 15:
            return .setEmojiTexts(
                someIDs().map { EmojiText(id: $0, text: texts.randomElement(using: &random)!) })
        case 16:
            // Unlocking more often than locking, so a run keeps emojis it can still change.
            return .setLocked(ids: someIDs(), locked: Int.random(in: 0..<5, using: &random) == 0)
        case 13 where Int.random(in: 0..<3, using: &random) == 0:
            // A restore of a version like this one with every other emoji (the id counter drops
            // back when the newest emojis are among those left out).
            let kept = document.emojis.enumerated().filter { $0.offset % 2 == 0 }.map(\.element)
            let restored = try? EmojiArtDocument(
                title: ["Restored", document.title].randomElement(using: &random)!, background: document.background,
                emojis: kept.reversed(), nextEmojiID: (kept.map(\.id).max() ?? 0) + 1)
            return restored.map {
                .restoreVersion(RestoredVersion(version: nil, actionName: "Restore Version of 14:02", document: $0))
            } ?? .retitle("Restored")
        default:
            return .setEmojiSizes(someIDs().map { EmojiSize(id: $0, size: Int.random(in: 0...1100, using: &random)) })
        }
    }
}
