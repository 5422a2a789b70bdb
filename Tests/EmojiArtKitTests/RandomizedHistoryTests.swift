import EmojiArtKit
import Foundation
import Testing

@Suite("Thousands of random edits undo and redo exactly")
struct RandomizedHistoryTests {
    @Test(arguments: [1, 2, 3, 42, 2026] as [UInt64])
    func randomEditsUndoAllAndRedoAll(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        let original = try makeDocument(emojiCount: 40)
        var session = EditingSession(document: original, undoLimit: 10_000)
        var rejected = 0
        for _ in 0..<3_000 {
            let edit = randomEdit(in: session.document, using: &random)
            let before = session.document
            let stepsBefore = session.history.undoSteps.count
            do {
                try session.perform(
                    edit, gesture: Bool.random(using: &random) ? "g\(Int.random(in: 0..<3, using: &random))" : nil)
            } catch let error as EmojiArtError {
                rejected += 1
                #expect(session.document == before, "seed \(seed): a rejected \(edit) changed the document (\(error))")
                #expect(session.history.undoSteps.count == stepsBefore)
            }
            if Int.random(in: 0..<10, using: &random) == 0 { try session.undo() }
            if Int.random(in: 0..<20, using: &random) == 0 { try session.redo() }
        }
        #expect(rejected > 100, "seed \(seed): the generator should make invalid edits too")
        #expect(rejected < 2_500, "seed \(seed): the generator should make mostly valid edits")
        let final = session.document

        while try session.undo() != nil {}
        #expect(session.document.title == original.title, "seed \(seed)")
        #expect(session.document.background == original.background, "seed \(seed)")
        #expect(session.document.emojis == original.emojis, "seed \(seed)")
        #expect(session.document.nextEmojiID >= original.nextEmojiID)

        while try session.redo() != nil {}
        #expect(session.document == final, "seed \(seed)")
    }

    func randomEdit(in document: EmojiArtDocument, using random: inout SplitMix64) -> Edit {
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
        switch Int.random(in: 0..<8, using: &random) {
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
                .image(data: pngBytes, mimeType: "image/png"), .url(URL(string: "ftp://example.com/x.png")!),
            ]
            return .setBackground(backgrounds.randomElement(using: &random)!)
        case 6:
            return .retitle(["Party", "Beach 🏖", "", "Bad\ttitle", "Café"].randomElement(using: &random)!)
        default:
            return .setEmojiSizes(someIDs().map { EmojiSize(id: $0, size: Int.random(in: 0...1100, using: &random)) })
        }
    }
}
