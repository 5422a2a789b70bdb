import EmojiArtKit
import Foundation
import Testing

@Suite("Reorder, rotate, paste and duplicate: undone exactly")
struct ArrangeEditTests {
    /// Emojis 1…count in drawing order.
    func document(_ count: Int) throws -> EmojiArtDocument {
        try makeDocument(emojiCount: count)
    }

    func order(after edit: Edit, on start: EmojiArtDocument) throws -> [Int] {
        var document = start
        let inverse = try document.apply(edit)
        let after = document.emojis.ids
        try document.apply(inverse)
        #expect(document.emojis.ids == start.emojis.ids)  // undone exactly
        #expect(Array(document.emojis) == Array(start.emojis))
        return after
    }

    @Test func eachPlacementMovesTheSelectionAndKeepsItsOrder() throws {
        let start = try document(6)
        #expect(try order(after: .reorder(ids: [4, 2], to: .front), on: start) == [1, 3, 5, 6, 2, 4])
        #expect(try order(after: .reorder(ids: [5, 3], to: .back), on: start) == [3, 5, 1, 2, 4, 6])
        // Forward: past the one next emoji not moving; a run moves together.
        #expect(try order(after: .reorder(ids: [2, 3], to: .forward), on: start) == [1, 4, 2, 3, 5, 6])
        #expect(try order(after: .reorder(ids: [1, 3], to: .forward), on: start) == [2, 1, 4, 3, 5, 6])
        #expect(try order(after: .reorder(ids: [6], to: .forward), on: start) == [1, 2, 3, 4, 5, 6])
        #expect(try order(after: .reorder(ids: [5, 6], to: .forward), on: start) == [1, 2, 3, 4, 5, 6])
        #expect(try order(after: .reorder(ids: [4, 5], to: .backward), on: start) == [1, 2, 4, 5, 3, 6])
        #expect(try order(after: .reorder(ids: [1], to: .backward), on: start) == [1, 2, 3, 4, 5, 6])
    }

    @Test func reorderHasItsActionNamesAndUndoesInOneStep() throws {
        var session = EditingSession(document: try document(4))
        for (placement, name) in [
            (ReorderPlacement.front, "Bring to Front"), (.back, "Send to Back"), (.forward, "Bring Forward"),
            (.backward, "Send Backward"),
        ] {
            let before = session.document.emojis.ids
            try session.perform(.reorder(ids: [2, 3], to: placement))
            #expect(session.history.undoActionName == name)
            _ = try session.undo()
            #expect(session.document.emojis.ids == before)
            _ = try session.redo()
        }
    }

    /// Whatever the order and the emojis moved, a reorder is a permutation that keeps the order
    /// among the moved emojis and among the others.
    @Test(arguments: [1, 2, 3, 4] as [UInt64]) func arrangingIsAPermutationKeepingRelativeOrder(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        for _ in 0..<300 {
            let order = Array(1...Int.random(in: 1...12, using: &random)).shuffled(using: &random)
            let moving = Set(order.filter { _ in Bool.random(using: &random) })
            for placement in ReorderPlacement.allCases {
                let arranged = placement.arrange(order, moving: moving)
                #expect(arranged.sorted() == order.sorted())
                #expect(arranged.filter(moving.contains) == order.filter(moving.contains))
                #expect(arranged.filter { !moving.contains($0) } == order.filter { !moving.contains($0) })
                let position = { (id: Int) in arranged.firstIndex(of: id)! - order.firstIndex(of: id)! }
                switch placement {
                case .forward: #expect(moving.allSatisfy { (0...1).contains(position($0)) || order.count < 2 })
                case .backward: #expect(moving.allSatisfy { (-1...0).contains(position($0)) || order.count < 2 })
                case .front: #expect(Set(arranged.suffix(moving.count)) == moving)
                case .back: #expect(Set(arranged.prefix(moving.count)) == moving)
                }
            }
        }
    }

    @Test func setEmojiOrderRefusesBadPlacesAndChangesNothing() throws {
        let start = try document(4)
        for bad: Edit in [
            .setEmojiOrder([EmojiIndex(id: 1, index: 4)]),
            .setEmojiOrder([EmojiIndex(id: 1, index: -1)]),
            .setEmojiOrder([EmojiIndex(id: 1, index: 2), EmojiIndex(id: 2, index: 2)]),
            .setEmojiOrder([EmojiIndex(id: 9, index: 0)]),
            .setEmojiOrder([EmojiIndex(id: 1, index: 0), EmojiIndex(id: 1, index: 1)]),
            .setEmojiOrder([]),
            .reorder(ids: [], to: .front),
            .reorder(ids: [7], to: .back),
        ] {
            var document = start
            #expect(throws: EmojiArtError.self) { try document.apply(bad) }
            #expect(document == start)
        }
    }

    @Test func rotateTurnsByWholeDegreesWithinOneTurn() throws {
        var document = try document(3)
        let inverse = try document.apply(.rotate(ids: [1, 2], degrees: 375))
        #expect(document.emojis[id: 1]?.rotation == 15)
        #expect(document.emojis[id: 3]?.rotation == 0)
        try document.apply(.rotate(ids: [1], degrees: -30))
        #expect(document.emojis[id: 1]?.rotation == 345)
        try document.apply(.rotate(ids: [1], degrees: 30))
        try document.apply(inverse)
        #expect(document.emojis.allSatisfy { $0.rotation == 0 })
        var session = EditingSession(document: document)
        try session.perform(.rotate(ids: [3], degrees: 90))
        #expect(session.history.undoActionName == "Rotate")
        #expect(throws: EmojiArtError.self) { try document.apply(.rotate(ids: [1], degrees: Int.max)) }
        #expect(throws: EmojiArtError.self) { try document.apply(.rotate(ids: [42], degrees: 90)) }
    }

    @Test func deletingAndRestoringATurnedEmojiKeepsItsTurn() throws {
        var session = EditingSession(document: try document(2))
        try session.perform(.rotate(ids: [2], degrees: 200))
        try session.perform(.deleteEmojis(ids: [2]))
        _ = try session.undo()
        #expect(session.document.emojis[id: 2]?.rotation == 200)
    }

    @Test func newEditsTravelInTheirWireFormAndCodable() throws {
        let edits: [Edit] = [
            .reorder(ids: [3, 1], to: .backward),
            .setEmojiOrder([EmojiIndex(id: 2, index: 0), EmojiIndex(id: 1, index: 5)]),
            .rotate(ids: [4], degrees: -15),
            .restoreEmojis([
                PlacedEmoji(index: 0, emoji: Emoji(id: 8, text: "🚚", position: .zero, size: 9, rotation: 90))
            ]),
        ]
        let bytes = Edit.encodeList(edits)
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(text.contains(#"{"type":"reorder","ids":[3,1],"to":"backward"}"#))
        #expect(text.contains(#"{"type":"rotate","ids":[4],"degrees":-15}"#))
        #expect(text.contains(#""rotation":90"#))
        let submission = try EditSubmission(json: Array(#"{"baseVersion":1,"edits":\#(text)}"#.utf8))
        #expect(submission.edits == edits)
        #expect(try Edit.decodeList(bytes) == edits)
        #expect(throws: EmojiArtError.self) {
            try EditSubmission(json: Array(#"{"baseVersion":1,"edit":{"type":"reorder","ids":[1],"to":"top"}}"#.utf8))
        }
        #expect(throws: EmojiArtError.self) {
            try EditSubmission(json: Array(#"{"baseVersion":1,"edit":{"type":"rotate","ids":[1],"degrees":1.5}}"#.utf8))
        }
    }

    @Test func theNativeFormatKeepsRotationAndTheOriginalsNoteItsLoss() throws {
        var document = try document(3)
        try document.apply(.rotate(ids: [2, 3], degrees: 45))
        let native = EmojiArtFile.write(document, as: .native)
        #expect(native.notes.isEmpty)
        let reread = try EmojiArtFile.read(native.bytes).document
        #expect(reread.emojis.map(\.rotation) == [0, 45, 45])
        for format in [DocumentFormat.cs193p2023, .cs193p2021] {
            let written = EmojiArtFile.write(document, as: format, implicitTitle: document.title)
            #expect(written.notes.contains { $0.contains("no rotation") && $0.contains("2 turned emojis") })
            #expect(try EmojiArtFile.read(written.bytes).document.emojis.allSatisfy { $0.rotation == 0 })
        }
        // Upright emojis are written as before: no rotation field at all.
        #expect(
            !String(decoding: EmojiArtFile.write(try self.document(2), as: .native).bytes, as: UTF8.self).contains(
                "rotation"))
        let bad =
            #"{"format":"emojiart","formatVersion":1,"title":"T","emojis":[{"string":"😀","position":{"x":0,"y":0},"size":40,"id":1,"rotation":360}],"uniqueEmojiId":1}"#
        #expect(throws: EmojiArtError.self) { try EmojiArtFile.read(Array(bad.utf8)) }
    }

    @Test func patchesOfReordersAndTurnsBringAnotherCopyAlong() throws {
        var session = EditingSession(document: try document(5))
        for edits: [Edit] in [
            [.reorder(ids: [2, 4], to: .front)], [.rotate(ids: [1], degrees: 30)],
            [.reorder(ids: [5], to: .back), .rotate(ids: [5], degrees: 90), .deleteEmojis(ids: [3])],
            [.reorder(ids: [1, 2], to: .forward), .reorder(ids: [1], to: .backward)],
        ] {
            var copy = session.document
            let firstNewID = session.document.nextEmojiID
            try session.perform(edits)
            let patch = DocumentPatch(edits: edits, firstNewID: firstNewID, after: session.document)
            try patch.apply(to: &copy)
            #expect(copy == session.document)
        }
    }

    @Test func pasteAddsOnTopWithTheNextIdsInOneStep() throws {
        var session = EditingSession(document: try document(2))
        let new = [
            NewEmoji(text: "🍕", position: Point(x: 5, y: 6), size: 30, rotation: 90),
            NewEmoji(text: "🍔", position: Point(x: -5, y: 0), size: 50),
        ]
        try session.perform(.paste(new))
        #expect(session.history.undoActionName == "Paste")
        #expect(session.document.emojis.ids == [1, 2, 3, 4])
        #expect(
            session.document.emojis[id: 3]
                == Emoji(id: 3, text: "🍕", position: Point(x: 5, y: 6), size: 30, rotation: 90))
        _ = try session.undo()
        #expect(session.document.emojis.ids == [1, 2])
        _ = try session.redo()
        #expect(session.document.emojis[id: 4]?.text == "🍔")  // ids are never reused: redo gives the same
        for bad: [NewEmoji] in [
            [], [NewEmoji(text: "a", position: .zero, size: 10)],
            [NewEmoji(text: "🍕", position: .zero, size: 10, rotation: 360)],
            [NewEmoji(text: "🍕", position: Point(x: 2_000_000, y: 0), size: 10)],
            [NewEmoji(text: "🍕", position: .zero, size: 10), NewEmoji(text: "🍕", position: .zero, size: 0)],
        ] {
            let before = session.document
            #expect(throws: EmojiArtError.self) { try session.perform(.paste(bad)) }
            #expect(session.document == before)
        }
    }

    @Test func duplicateCopiesInDrawingOrderOffsetAndTurned() throws {
        var session = EditingSession(document: try document(3))
        try session.perform(.rotate(ids: [3], degrees: 30))
        let before = session.document
        try session.perform(.duplicate(ids: [3, 1], offset: Point(x: 16, y: -16)))
        #expect(session.history.undoActionName == "Duplicate")
        let copies = Array(session.document.emojis.suffix(2))
        #expect(copies.map(\.id) == [4, 5])
        #expect(copies.map(\.text) == [before.emojis[id: 1]!.text, before.emojis[id: 3]!.text])
        #expect(copies[1].rotation == 30 && copies[1].size == before.emojis[id: 3]!.size)
        #expect(
            copies[0].position
                == Point(x: before.emojis[id: 1]!.position.x + 16, y: before.emojis[id: 1]!.position.y - 16))
        _ = try session.undo()
        #expect(session.document.emojis == before.emojis)
        #expect(throws: EmojiArtError.self) {
            try session.perform(.duplicate(ids: [1], offset: Point(x: 3_000_000, y: 0)))
        }
        #expect(throws: EmojiArtError.self) { try session.perform(.duplicate(ids: [9], offset: .zero)) }
    }

    @Test func pasteAndDuplicateTravelInTheirWireForm() throws {
        let edits: [Edit] = [
            .paste([NewEmoji(text: "🍕", position: Point(x: 1, y: 2), size: 3, rotation: 4)]),
            .duplicate(ids: [1, 2], offset: Point(x: 10, y: -10)),
        ]
        let text = String(decoding: Edit.encodeList(edits), as: UTF8.self)
        #expect(
            text
                == #"[{"type":"paste","emojis":[{"text":"🍕","position":{"x":1,"y":2},"size":3,"rotation":4}]},{"type":"duplicate","ids":[1,2],"offset":{"x":10,"y":-10}}]"#
        )
        #expect(try EditSubmission(json: Array(#"{"baseVersion":1,"edits":\#(text)}"#.utf8)).edits == edits)
        #expect(try Edit.decodeList(Edit.encodeList(edits)) == edits)
    }
}
