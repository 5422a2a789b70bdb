import EmojiArtKit
import EmojiArtTestSupport
import Foundation
import Testing

/// Issue #21 item 5: a move of a big selection is ids as runs and one offset, in the edit and in
/// the change every window receives — not each emoji's state.
@Suite("Moves travel as ids and an offset")
struct SmallWireTests {
    private func moved(_ count: Int) throws -> (patch: DocumentPatch, after: EmojiArtDocument, before: EmojiArtDocument)
    {
        let before = try makeDocument(emojiCount: count)
        var after = before
        let edit = Edit.moveEmojis(ids: before.emojis.ids, offset: Point(x: 12, y: -5))
        _ = try after.apply(edit)
        return (DocumentPatch(edits: [edit], firstNewID: before.nextEmojiID, after: after), after, before)
    }

    @Test func movingTenThousandEmojisIsOneGroup() throws {
        let (patch, after, before) = try moved(10_000)
        #expect(patch.updated.isEmpty && patch.inserted.isEmpty && patch.removedIDs.isEmpty)
        #expect(patch.moved == [MovedEmojis(ids: Array(1...10_000), offset: Point(x: 12, y: -5))])
        var replica = before
        try patch.apply(to: &replica)
        #expect(replica == after)
    }

    /// The edit's JSON and the group's are the same size for 10 emojis as for 10,000.
    @Test func theBytesDoNotGrowWithTheSelection() throws {
        func editBytes(_ count: Int) -> Int {
            Edit.encodeList([.moveEmojis(ids: Array(1...count), offset: Point(x: 12, y: -5))]).count
        }
        #expect(editBytes(10_000) - editBytes(10) <= 3, "only the last id's digits differ")
        #expect(editBytes(10_000) < 80)
        let edit = String(
            decoding: Edit.encodeList([.moveEmojis(ids: Array(1...10_000), offset: .zero)]), as: UTF8.self)
        #expect(edit.contains(#""idRanges":[[1,10000]]"#))
    }

    @Test func onlyEmojisThatOnlyMovedAreGrouped() throws {
        var document = try makeDocument(emojiCount: 6)
        let before = document
        let edits: [Edit] = [
            .moveEmojis(ids: [1, 2, 3, 4], offset: Point(x: 5, y: 0)),
            .moveEmojis(ids: [2], offset: Point(x: -5, y: 0)),  // back where it was: no change
            .moveEmojis(ids: [3], offset: Point(x: 0, y: 1)),  // a different total offset
            .resizeEmojis(ids: [4], scale: 2),  // moved and resized: sent whole
            .deleteEmojis(ids: [1]),  // moved and deleted: only removed
        ]
        for edit in edits { _ = try document.apply(edit) }
        let patch = DocumentPatch(edits: edits, firstNewID: before.nextEmojiID, after: document)
        #expect(patch.moved == [MovedEmojis(ids: [3], offset: Point(x: 5, y: 1))])
        #expect(patch.updated.map(\.id) == [4])
        #expect(patch.removedIDs == [1])
        var replica = before
        try patch.apply(to: &replica)
        #expect(replica == document)
    }

    @Test func aGroupNamingAMissingEmojiChangesNothing() throws {
        var document = try makeDocument(emojiCount: 2)
        let before = document
        let patch = DocumentPatch(
            moved: [MovedEmojis(ids: [1, 99], offset: Point(x: 1, y: 1))], nextEmojiID: document.nextEmojiID)
        #expect(throws: EmojiArtError.self) { try patch.apply(to: &document) }
        #expect(document == before)
    }

    @Test func editsReadIDRangesAsTheirIDs() throws {
        let read = try EditSubmission(
            json: Array(#"{"baseVersion":0,"edits":[{"type":"deleteEmojis","idRanges":[[1,3],[7,7]]}]}"#.utf8))
        #expect(read.edits == [.deleteEmojis(ids: [1, 2, 3, 7])])
        let decoded = try Edit(json: Array(#"{"type":"rotate","idRanges":[[4,6]],"degrees":90}"#.utf8))
        #expect(decoded == .rotate(ids: [4, 5, 6], degrees: 90))
    }

    @Test(arguments: [
        #"{"type":"moveEmojis","idRanges":[[3,1]],"offset":{"x":1,"y":1}}"#,  // backwards
        #"{"type":"moveEmojis","idRanges":[[1,2,3]],"offset":{"x":1,"y":1}}"#,  // not a pair
        #"{"type":"moveEmojis","idRanges":[[1,1000000000]],"offset":{"x":1,"y":1}}"#,  // more than a document holds
        #"{"type":"moveEmojis","idRanges":[[-1,9223372036854775807]],"offset":{"x":1,"y":1}}"#,  // overflows
        #"{"type":"deleteEmojis","idRanges":[[-9223372036854775808,1]]}"#,  // overflows
        #"{"type":"moveEmojis","idRanges":[[1,60000],[70000,130000]],"offset":{"x":1,"y":1}}"#,
        #"{"type":"moveEmojis","ids":[1],"idRanges":[[1,1]],"offset":{"x":1,"y":1}}"#,  // both
        #"{"type":"moveEmojis","offset":{"x":1,"y":1}}"#,  // neither
    ])
    func badIDRangesAreRefused(_ edit: String) {
        #expect(throws: EmojiArtError.self) {
            try EditSubmission(json: Array(#"{"baseVersion":0,"edit":\#(edit)}"#.utf8))
        }
    }

    /// Ids in no order, or too scattered to shorten, are written as a list and read back alike.
    @Test(arguments: [[5, 3, 1, 2, 4, 6, 7, 8, 9], Array(stride(from: 1, through: 40, by: 2)), [1, 2, 3]])
    func idListsRoundTripWhicheverFormTheyTake(_ ids: [Int]) throws {
        let edit = Edit.moveEmojis(ids: ids, offset: Point(x: 1, y: 2))
        #expect(try Edit.decodeList(Edit.encodeList([edit])) == [edit])
        #expect(String(decoding: Edit.encodeList([edit]), as: UTF8.self).contains(#""ids":["#))
    }
}
