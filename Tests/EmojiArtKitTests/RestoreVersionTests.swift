import EmojiArtKit
import EmojiArtTestSupport
import Foundation
import Testing

@Suite("Restoring a version is one edit that puts the whole document back")
struct RestoreVersionTests {
    func restored(_ document: EmojiArtDocument, version: Int? = 2) -> Edit {
        .restoreVersion(RestoredVersion(version: version, actionName: "Restore Version of 14:02", document: document))
    }

    @Test func itReplacesEverythingAndItsInverseBringsItAllBack() throws {
        var session = EditingSession(document: try makeDocument(emojiCount: 3))
        let early = session.document
        try session.perform(.retitle("Later"))
        try session.perform(.addEmoji(text: "🐶", position: Point(x: 5, y: 5), size: 30))
        try session.perform(.deleteEmojis(ids: [1]))
        let late = session.document
        try session.perform(restored(early))
        #expect(session.document == early, "title, emojis, order and id counter")
        #expect(session.history.undoActionName == "Restore Version of 14:02")
        try session.undo()
        #expect(session.document == late)
        try session.redo()
        #expect(session.document == early)
    }

    @Test func itTravelsAndIsLoggedInTheWireForm() throws {
        var document = try makeDocument(emojiCount: 4)
        try document.apply(.rotate(ids: [2], degrees: 30))
        try document.apply(.setBackground(.url(URL(string: "https://example.com/a.png")!)))
        let edit = restored(document)
        let bytes = Edit.encodeList([edit])
        let decoded = try Edit.decodeList(bytes)
        #expect(decoded == [edit])
        guard case .restoreVersion(let back) = decoded[0] else { throw EmojiArtError(.invalidFile, "not a restore") }
        #expect(back.document == document)
        #expect(back.version == 2)
    }

    @Test func clientsCannotSubmitOne() throws {
        let edit = restored(try makeDocument(emojiCount: 1))
        let json =
            #"{"baseVersion":1,"edits":["#
            + String(decoding: Edit.encodeList([edit]).dropFirst().dropLast(), as: UTF8.self) + "]}"
        #expect(throws: EmojiArtError.self) { try EditSubmission(json: Array(json.utf8)) }
    }

    @Test func aStoredRestoreWithABadDocumentIsRefusedByTheReader() throws {
        let json = #"""
            [{"type":"restoreVersion","actionName":"x","title":"t","background":null,"nextEmojiId":3,
              "emojis":[{"id":1,"text":"a","position":{"x":0,"y":0},"size":40}]}]
            """#
        #expect(throws: EmojiArtError.self) { try Edit.decodeList(Array(json.utf8)) }
    }

    @Test func aPatchOfARestoreRemovesEveryEmojiBeforeIt() throws {
        var document = try makeDocument(emojiCount: 5)
        var replica = document
        let target = try EmojiArtDocument(
            title: "Back", emojis: [Emoji(id: 2, text: "🚚", position: Point(x: 1, y: 1), size: 20)], nextEmojiID: 3)
        let before = document.emojis.ids
        let first = document.nextEmojiID
        try document.apply(restored(target))
        let patch = DocumentPatch(edits: [restored(target)], firstNewID: first, after: document, idsBefore: before)
        #expect(DocumentPatch.needsIDsBefore([restored(target)]))
        try patch.apply(to: &replica)
        #expect(replica == target)
    }
}
