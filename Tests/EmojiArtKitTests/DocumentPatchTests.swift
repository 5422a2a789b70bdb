import EmojiArtKit
import EmojiArtTestSupport
import Foundation
import Testing

@Suite("A version's patch turns the document before it into the document after it")
struct DocumentPatchTests {
    @Test(arguments: [1, 7, 99, 2026] as [UInt64])
    func patchesReproduceEveryVersion(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        var session = EditingSession(document: try makeDocument(emojiCount: 30), undoLimit: 500)
        var replica = session.document
        var versions = 0
        for _ in 0..<2_000 {
            let before = session.document
            let applied: [Edit]?
            switch Int.random(in: 0..<10, using: &random) {
            case 0: applied = try session.undo()
            case 1: applied = try session.redo()
            default:
                var edits: [Edit] = []
                for _ in 0..<Int.random(in: 1...3, using: &random) {
                    edits.append(RandomEdits.edit(in: session.document, using: &random))
                }
                applied = (try? session.perform(edits)) != nil ? edits : nil
            }
            guard let applied else { continue }
            let patch = DocumentPatch(
                edits: applied, firstNewID: before.nextEmojiID, after: session.document,
                idsBefore: before.emojis.ids)
            try patch.apply(to: &replica)
            #expect(replica == session.document, "seed \(seed), after \(applied)")
            if replica != session.document { return }
            versions += 1
        }
        #expect(versions > 800)  // most batches apply; the rest are invalid or touch locked emojis
    }

    @Test func aPatchThatDoesNotFitChangesNothing() throws {
        var document = try makeDocument(emojiCount: 3)
        let original = document
        let patch = DocumentPatch(
            removedIDs: [1], updated: [Emoji(id: 99, text: "😀", position: Point(x: 0, y: 0), size: 10)],
            nextEmojiID: 100)
        #expect(throws: EmojiArtError.self) { try patch.apply(to: &document) }
        #expect(document == original)
    }

    @Test func deletingAndRestoringInOneVersionMovesTheEmoji() throws {
        var document = try makeDocument(emojiCount: 3)
        var replica = document
        let last = document.emojis[2]
        let edits: [Edit] = [.deleteEmojis(ids: [last.id]), .restoreEmojis([PlacedEmoji(index: 0, emoji: last)])]
        let first = document.nextEmojiID
        for edit in edits { _ = try document.apply(edit) }
        let patch = DocumentPatch(edits: edits, firstNewID: first, after: document)
        #expect(patch.removedIDs == [last.id])
        #expect(patch.inserted == [PlacedEmoji(index: 0, emoji: last)])
        try patch.apply(to: &replica)
        #expect(replica == document)
    }
}

@Suite("A refused change leaves no trace, not even used-up ids")
struct RefusedChangeTests {
    /// Found by the live-sync fuzz test: a refused [add, bad edit] used to keep the raised id
    /// counter, so replaying the edit log gave later emojis other ids than they had live.
    @Test func aRefusedBatchDoesNotUseUpIDs() throws {
        var session = EditingSession(document: try makeDocument(emojiCount: 2))
        let before = session.document
        #expect(throws: EmojiArtError.self) {
            try session.perform([
                .addEmoji(text: "🚀", position: Point(x: 0, y: 0), size: 40), .deleteEmojis(ids: [999]),
            ])
        }
        #expect(session.document == before)
        #expect(session.document.nextEmojiID == before.nextEmojiID)
    }
}
