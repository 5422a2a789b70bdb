import Foundation
import Testing

@testable import EmojiArtKit

/// Locked emojis (issue #37): "Lock" and "Unlock" are undoable edits; an edit that would change a
/// locked emoji is refused whole (`locked`), unless it only unlocks; the native format keeps
/// locks and the CS193P formats say they drop them.
@Suite("Locked emojis")
struct LockTests {
    @Test func lockingIsAnUndoableEditThatPutsBackOnlyWhatItChanged() throws {
        var session = EditingSession(document: try makeDocument(emojiCount: 3))
        try session.perform(.setLocked(ids: [1], locked: true))
        #expect(session.history.undoActionName == "Lock")
        try session.perform(.setLocked(ids: [1, 2], locked: true))
        #expect(session.document.emojis.filter(\.locked).map(\.id) == [1, 2])
        _ = try session.undo()  // the second lock changed only 2
        #expect(session.document.emojis.filter(\.locked).map(\.id) == [1])
        _ = try session.redo()
        try session.perform(.setLocked(ids: [1, 2, 3], locked: false))
        #expect(session.history.undoActionName == "Unlock")
        #expect(session.document.emojis.allSatisfy { !$0.locked })
        _ = try session.undo()
        #expect(session.document.emojis.filter(\.locked).map(\.id) == [1, 2])
        // Naming an emoji that isn't there changes nothing.
        #expect(throws: EmojiArtError.self) { try session.perform(.setLocked(ids: [2, 99], locked: false)) }
        #expect(session.document.emojis.filter(\.locked).map(\.id) == [1, 2])
    }

    @Test(
        "every edit that would change a locked emoji is refused whole",
        arguments: [
            Edit.moveEmojis(ids: [3, 1], offset: Point(x: 1, y: 1)),
            .resizeEmojis(ids: [1], scale: 2),
            .setEmojiSizes([EmojiSize(id: 1, size: 10)]),
            .deleteEmojis(ids: [3, 1]),
            .reorder(ids: [1], to: .front),
            .setEmojiOrder([EmojiIndex(id: 1, index: 2)]),
            .rotate(ids: [1], degrees: 90),
            .replaceEmoji(ids: [1], text: "🌴"),
            .setEmojiTexts([EmojiText(id: 1, text: "🌴")]),
        ])
    func changesToALockedEmojiAreRefused(edit: Edit) throws {
        var document = try makeDocument(emojiCount: 3)
        try document.apply(.setLocked(ids: [1], locked: true))
        let before = document
        #expect {
            try document.apply(edit)
        } throws: { error in
            (error as? EmojiArtError)?.code == .locked && "\(error)".contains("emoji 1")
                && "\(error)".contains("unlock")
        }
        #expect(document == before)
        // Unlocked, the same edit applies.
        try document.apply(.setLocked(ids: [1], locked: false))
        try document.apply(edit)
    }

    @Test func whatDoesNotChangeALockedEmojiStillApplies() throws {
        var document = try makeDocument(emojiCount: 3)
        try document.apply(.setLocked(ids: [1], locked: true))
        // Copies are new emojis, not locked; other emojis move past it in drawing order.
        try document.apply(.duplicate(ids: [1], offset: Point(x: 10, y: 0)))
        #expect(document.emojis.last?.locked == false && document.emojis.last?.text == document.emojis[id: 1]?.text)
        try document.apply(.reorder(ids: [2], to: .back))
        try document.apply(.moveEmojis(ids: [2, 3], offset: Point(x: 5, y: 5)))
        // Locking again changes nothing, and neither does its undo.
        let before = document
        let inverse = try document.apply(.setLocked(ids: [1], locked: true))
        #expect(document == before)
        try document.apply(inverse)
        #expect(document == before)
    }

    @Test func theWireAndTheLogCarryLocks() throws {
        for edit in [Edit.setLocked(ids: [1, 2, 3, 4], locked: true), .setLocked(ids: [7], locked: false)] {
            #expect(try Edit(json: edit.json) == edit)
        }
        #expect(
            String(decoding: Edit.setLocked(ids: [4], locked: true).json, as: UTF8.self)
                == #"{"type":"setLocked","ids":[4],"locked":true}"#)
        for bad in [
            #"{"type":"setLocked","ids":[1],"locked":1}"#, #"{"type":"setLocked","ids":[1]}"#,
            #"{"type":"setLocked","locked":true}"#,
        ] {
            #expect(throws: EmojiArtError.self) { try Edit(json: Array(bad.utf8)) }
        }
        // A locked emoji put back (undoing a restore) and a restored version keep their locks.
        let locked = Emoji(id: 5, text: "🌲", position: .zero, size: 40, locked: true)
        let restore = Edit.restoreEmojis([PlacedEmoji(index: 0, emoji: locked)])
        #expect(try Edit(json: restore.json) == restore)
        let version = Edit.restoreVersion(
            RestoredVersion(
                version: 3, actionName: "Restore",
                document: try EmojiArtDocument(title: "Old", emojis: [locked], nextEmojiID: 6)))
        #expect(try Edit(json: version.json) == version)
    }

    @Test func aPatchCarriesTheLockAndRebuildsTheDocument() throws {
        let before = try makeDocument(emojiCount: 4)
        var after = before
        let edits: [Edit] = [.setLocked(ids: [2, 4], locked: true), .moveEmojis(ids: [1], offset: Point(x: 3, y: 0))]
        for edit in edits { try after.apply(edit) }
        let patch = DocumentPatch(edits: edits, firstNewID: before.nextEmojiID, after: after)
        #expect(patch.updated.map(\.id) == [2, 4] && patch.updated.allSatisfy(\.locked))
        var copy = before
        try patch.apply(to: &copy)
        #expect(copy == after)
    }

    @Test func theNativeFormatKeepsLocksAndTheOriginalsSayTheyDropThem() throws {
        var document = try makeDocument(emojiCount: 3)
        try document.apply(.setLocked(ids: [1, 3], locked: true))
        let native = EmojiArtFile.write(document, as: .native)
        #expect(native.notes.isEmpty)
        #expect(String(decoding: native.bytes, as: UTF8.self).contains(#""locked":true"#))
        #expect(try EmojiArtFile.read(native.bytes).document == document)
        // The general reader (the fast one's fallback) agrees.
        #expect(try EmojiArtFile.readTree(native.bytes, defaultTitle: "").document == document)
        for format in [DocumentFormat.cs193p2021, .cs193p2023] {
            let exported = EmojiArtFile.write(document, as: format)
            #expect(
                exported.notes.contains(
                    "The \(format.displayName) format has no locks; 2 locked emojis are saved unlocked."))
            #expect(!String(decoding: exported.bytes, as: UTF8.self).contains("locked"))
            #expect(
                try EmojiArtFile.read(exported.bytes, defaultTitle: "Test").document.emojis.allSatisfy { !$0.locked })
        }
        // A lock that isn't true or false is refused, naming the field.
        let bad = String(decoding: native.bytes, as: UTF8.self).replacingOccurrences(
            of: #""locked":true"#, with: #""locked":"yes""#)
        #expect(throws: EmojiArtError.self) { try EmojiArtFile.read(Array(bad.utf8)) }
    }
}
