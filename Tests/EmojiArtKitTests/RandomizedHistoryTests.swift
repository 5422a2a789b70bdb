import EmojiArtKit
import EmojiArtTestSupport
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
            let edit = RandomEdits.edit(in: session.document, using: &random)
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

        // Steps undone last and never redone are on the redo stack already: redo only as many
        // steps as are undone now, which brings back `final` exactly.
        var undone = 0
        while try session.undo() != nil { undone += 1 }
        #expect(session.document.title == original.title, "seed \(seed)")
        #expect(session.document.background == original.background, "seed \(seed)")
        #expect(session.document.emojis == original.emojis, "seed \(seed)")
        #expect(session.document.nextEmojiID >= original.nextEmojiID)

        for _ in 0..<undone { try session.redo() }
        #expect(session.document == final, "seed \(seed)")
    }
}
