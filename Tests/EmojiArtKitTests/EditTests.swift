import EmojiArtKit
import Foundation
import Testing

@Suite("Edits apply whole or not at all, and undo exactly")
struct EditTests {
    /// Scripts "do, expect, undo, expect, redo, expect" for one edit.
    func script(
        _ edit: Edit, on start: EmojiArtDocument, actionName: String,
        expect: (EmojiArtDocument) throws -> Void
    ) throws {
        var session = EditingSession(document: start)
        try session.perform(edit)
        try expect(session.document)
        #expect(session.history.undoActionName == actionName)
        let afterDo = session.document

        #expect(try session.undo() != nil)
        #expect(session.document.title == start.title)
        #expect(session.document.background == start.background)
        #expect(session.document.emojis == start.emojis)
        #expect(session.history.redoActionName == actionName)
        #expect(!session.history.canUndo)

        #expect(try session.redo() != nil)
        #expect(session.document.emojis == afterDo.emojis)
        #expect(session.document.background == afterDo.background)
        #expect(session.document.title == afterDo.title)
        #expect(session.history.undoActionName == actionName)
        #expect(!session.history.canRedo)
    }

    @Test func addEmoji() throws {
        try script(
            .addEmoji(text: "🚚", position: Point(x: 10, y: -20), size: 40), on: try makeDocument(emojiCount: 2),
            actionName: "Add 🚚"
        ) {
            #expect($0.emojis.count == 3)
            #expect($0.emojis.last == Emoji(id: 3, text: "🚚", position: Point(x: 10, y: -20), size: 40))
            #expect($0.nextEmojiID == 4)
        }
    }

    @Test func moveEmojis() throws {
        let start = try makeDocument(emojiCount: 3)
        try script(.moveEmojis(ids: [1, 3], offset: Point(x: 5, y: -7)), on: start, actionName: "Move") {
            #expect(
                $0.emojis[id: 1]?.position
                    == Point(x: start.emojis[id: 1]!.position.x + 5, y: start.emojis[id: 1]!.position.y - 7))
            #expect($0.emojis[id: 2] == start.emojis[id: 2])
            #expect($0.emojis[id: 3]?.position.x == start.emojis[id: 3]!.position.x + 5)
        }
    }

    @Test func resizeEmojisRoundsToWholePointsAndNeverBelowOne() throws {
        let start = try EmojiArtDocument(emojis: [
            Emoji(id: 1, text: "😀", position: .zero, size: 41),
            Emoji(id: 2, text: "🚚", position: .zero, size: 1),
            Emoji(id: 3, text: "🚚", position: .zero, size: 1000),
        ])
        try script(.resizeEmojis(ids: [1, 2], scale: 1.5), on: start, actionName: "Resize") {
            #expect($0.emojis[id: 1]?.size == 62)  // 61.5 rounds to 62
            #expect($0.emojis[id: 2]?.size == 2)  // 1.5 rounds to 2
            #expect($0.emojis[id: 3]?.size == 1000)
        }
        try script(.resizeEmojis(ids: [1, 2], scale: 0.01), on: start, actionName: "Resize") {
            #expect($0.emojis[id: 1]?.size == 1)
            #expect($0.emojis[id: 2]?.size == 1)
        }
        try script(.resizeEmojis(ids: [3], scale: 4), on: start, actionName: "Resize") {
            #expect($0.emojis[id: 3]?.size == 1024)
        }
    }

    @Test func deleteEmojisRestoresDrawingOrderOnUndo() throws {
        let start = try makeDocument(emojiCount: 5)
        try script(.deleteEmojis(ids: [4, 2, 5]), on: start, actionName: "Delete") {
            #expect($0.emojis.ids == [1, 3])
        }
    }

    @Test func setBackground() throws {
        let url = try #require(URL(string: "https://example.com/a.png"))
        try script(.setBackground(.url(url)), on: try makeDocument(emojiCount: 1), actionName: "Set Background") {
            #expect($0.background == .url(url))
        }
        var withURL = try makeDocument(emojiCount: 1)
        try withURL.apply(.setBackground(.url(url)))
        try script(
            .setBackground(.image(data: pngBytes, mimeType: "image/png")), on: withURL, actionName: "Set Background"
        ) {
            #expect($0.background == .image(data: pngBytes, mimeType: "image/png"))
        }
        try script(.setBackground(.none), on: withURL, actionName: "Set Background") {
            #expect($0.background == .none)
        }
    }

    @Test func retitle() throws {
        try script(.retitle("Beach Party 🏖"), on: try makeDocument(emojiCount: 1), actionName: "Rename") {
            #expect($0.title == "Beach Party 🏖")
        }
    }

    @Test func setEmojiSizes() throws {
        let start = try makeDocument(emojiCount: 3)
        try script(
            .setEmojiSizes([EmojiSize(id: 3, size: 1), EmojiSize(id: 1, size: 1024)]), on: start, actionName: "Resize"
        ) {
            #expect($0.emojis[id: 1]?.size == 1024)
            #expect($0.emojis[id: 2] == start.emojis[id: 2])
            #expect($0.emojis[id: 3]?.size == 1)
        }
    }

    @Test func replaceEmojiKeepsPlaceSizeAndTurnAndUndoesEachText() throws {
        var start = try makeDocument(emojiCount: 4)
        try start.apply(.rotate(ids: [2], degrees: 30))
        try script(.replaceEmoji(ids: [1, 2, 4], text: "🌴"), on: start, actionName: "Replace with 🌴") { after in
            for id in [1, 2, 4] {
                let (old, new) = (start.emojis[id: id]!, after.emojis[id: id]!)
                #expect(new.text == "🌴")
                #expect(new.position == old.position && new.size == old.size && new.rotation == old.rotation)
            }
            #expect(after.emojis[id: 3] == start.emojis[id: 3])
            #expect(after.emojis.ids == start.emojis.ids)  // drawing order kept
        }
        var document = start
        let inverse = try document.apply(.replaceEmoji(ids: [1, 2], text: "🌴"))
        #expect(inverse == .setEmojiTexts([EmojiText(id: 1, text: "😀"), EmojiText(id: 2, text: "🚚")]))
        #expect(inverse.actionName == "Replace")
    }

    @Test func restoreEmojisPutsThemAtTheirIndexes() throws {
        let start = try makeDocument(emojiCount: 3)
        let first = Emoji(id: 10, text: "🐶", position: Point(x: 1, y: 2), size: 30)
        let middle = Emoji(id: 11, text: "🐱", position: Point(x: 3, y: 4), size: 31)
        try script(
            .restoreEmojis([PlacedEmoji(index: 0, emoji: first), PlacedEmoji(index: 2, emoji: middle)]), on: start,
            actionName: "Add Emojis"
        ) {
            #expect($0.emojis.ids == [10, 1, 11, 2, 3])
            #expect($0.nextEmojiID == 12)
        }
    }

    @Test func idsAreNeverReusedEvenAfterUndo() throws {
        var session = EditingSession(document: try EmojiArtDocument())
        try session.perform(.addEmoji(text: "😀", position: .zero, size: 40))
        try session.undo()
        try session.perform(.addEmoji(text: "🚚", position: .zero, size: 40))
        #expect(session.document.emojis.ids == [2])
    }

    static let invalidEdits: [(Edit, EmojiArtError.Code)] = [
        (.moveEmojis(ids: [99], offset: Point(x: 1, y: 1)), .unknownEmoji),
        (.moveEmojis(ids: [], offset: Point(x: 1, y: 1)), .unknownEmoji),
        (.moveEmojis(ids: [1, 1], offset: Point(x: 1, y: 1)), .outOfRange),
        (.moveEmojis(ids: [1, 2], offset: Point(x: 2_000_000, y: 0)), .outOfRange),
        (.moveEmojis(ids: [1], offset: Point(x: .max, y: 0)), .outOfRange),
        (.moveEmojis(ids: [1], offset: Point(x: .min, y: 0)), .outOfRange),
        (.moveEmojis(ids: [1], offset: Point(x: 0, y: .min)), .outOfRange),
        (.resizeEmojis(ids: [1, 99], scale: 2), .unknownEmoji),
        (.resizeEmojis(ids: [1], scale: .nan), .outOfRange),
        (.resizeEmojis(ids: [1], scale: 0), .outOfRange),
        (.resizeEmojis(ids: [1], scale: -2), .outOfRange),
        (.setEmojiSizes([EmojiSize(id: 1, size: 0)]), .outOfRange),
        (.setEmojiSizes([EmojiSize(id: 1, size: 20), EmojiSize(id: 2, size: 2000)]), .outOfRange),
        (.deleteEmojis(ids: [1, 42]), .unknownEmoji),
        (.replaceEmoji(ids: [1], text: "🌴🌴"), .invalidEmoji),
        (.replaceEmoji(ids: [1], text: "palm"), .invalidEmoji),
        (.replaceEmoji(ids: [1], text: ""), .invalidEmoji),
        (.replaceEmoji(ids: [], text: "🌴"), .unknownEmoji),
        (.replaceEmoji(ids: [1, 77], text: "🌴"), .unknownEmoji),
        (.replaceEmoji(ids: [1, 1], text: "🌴"), .outOfRange),
        (.setEmojiTexts([EmojiText(id: 1, text: "🌴"), EmojiText(id: 2, text: "x")]), .invalidEmoji),
        (.setEmojiTexts([]), .unknownEmoji),
        (.addEmoji(text: "😀😀", position: .zero, size: 40), .invalidEmoji),
        (.addEmoji(text: "😀", position: Point(x: 1_000_001, y: 0), size: 40), .outOfRange),
        (.addEmoji(text: "😀", position: .zero, size: 0), .outOfRange),
        (.addEmoji(text: "😀", position: .zero, size: 1025), .outOfRange),
        (
            .restoreEmojis([PlacedEmoji(index: 0, emoji: Emoji(id: 1, text: "😀", position: .zero, size: 40))]),
            .outOfRange
        ),
        (
            .restoreEmojis([PlacedEmoji(index: 99, emoji: Emoji(id: 50, text: "😀", position: .zero, size: 40))]),
            .outOfRange
        ),
        (.retitle(""), .invalidText),
        (.retitle(String(repeating: "x", count: 201)), .invalidText),
        // One character, 40 KB: titles are limited by bytes too.
        (.retitle("a" + String(repeating: "\u{301}", count: 20_000)), .invalidText),
        (.retitle(String(repeating: "👩‍👩‍👧‍👦", count: 41)), .invalidText),
        (.retitle("two\nlines"), .invalidText),
        (.setBackground(.url(URL(string: "file:///etc/passwd")!)), .invalidBackground),
        (.setBackground(.url(URL(string: "javascript:alert(1)")!)), .invalidBackground),
        (.setBackground(.image(data: Data(), mimeType: "image/png")), .invalidBackground),
        (.setBackground(.image(data: pngBytes, mimeType: "text/html")), .invalidBackground),
    ]

    @Test("invalid edits throw and change nothing", arguments: invalidEdits)
    func invalidEditChangesNothing(edit: Edit, code: EmojiArtError.Code) throws {
        var document = try makeDocument(emojiCount: 3)
        try document.apply(.moveEmojis(ids: [2], offset: Point(x: 999_000 - document.emojis[id: 2]!.position.x, y: 0)))
        let before = document
        let error = #expect(throws: EmojiArtError.self) { try document.apply(edit) }
        #expect(error?.code == code)
        #expect(document == before)
    }

    @Test func titlesAreCutToTheirLimitsAtCharacterBoundaries() throws {
        var document = try makeDocument(emojiCount: 0)
        // 40 families are 1,000 bytes: the longest such title allowed.
        let longest = String(repeating: "👩‍👩‍👧‍👦", count: 40)
        try document.apply(.retitle(longest))
        #expect(document.title == longest)
        #expect(DocumentLimits.clampedTitle(longest + "👩‍👩‍👧‍👦") == longest)
        #expect(DocumentLimits.clampedTitle(String(repeating: "x", count: 300)).count == 200)
        let accents = "a" + String(repeating: "\u{301}", count: 20_000)
        #expect(DocumentLimits.clampedTitle(accents).isEmpty, "a character over the byte limit is left out whole")
        #expect(EmojiArtDocument.title(fromFileName: "b" + accents) == "b")
    }

    @Test func aGroupThatFailsPartwayChangesNothing() throws {
        var session = EditingSession(document: try makeDocument(emojiCount: 3))
        let before = session.document
        #expect(throws: EmojiArtError.self) {
            try session.perform([
                .moveEmojis(ids: [1], offset: Point(x: 5, y: 5)),
                .deleteEmojis(ids: [2]),
                .moveEmojis(ids: [2], offset: Point(x: 5, y: 5)),
            ])
        }
        #expect(session.document == before)
        #expect(!session.history.canUndo)
    }

    @Test func aDocumentHoldsAtMost100000Emojis() throws {
        var document = try makeDocument(emojiCount: DocumentLimits.maximumEmojiCount)
        let error = #expect(throws: EmojiArtError.self) {
            try document.apply(.addEmoji(text: "😀", position: .zero, size: 40))
        }
        #expect(error?.code == .tooLarge)
        // Lookups and moves stay O(1) at the limit.
        try document.apply(.moveEmojis(ids: [50_000], offset: Point(x: 1, y: 1)))
    }

    @Test func theFastWireFormIsTheCodableForm() throws {
        let edits: [Edit] = [
            .setBackground(.none), .setBackground(.url(URL(string: "https://example.com/x.png")!)),
            .setBackground(.image(data: pngBytes, mimeType: "image/png")),
            .addEmoji(text: "👨‍👩‍👧‍👦", position: Point(x: -1, y: 2), size: 40),
            .moveEmojis(ids: [1, 2], offset: Point(x: 3, y: -4)), .resizeEmojis(ids: [1], scale: 1.25),
            .resizeEmojis(ids: [1], scale: 0.1), .resizeEmojis(ids: [1], scale: 3),
            .setEmojiSizes([EmojiSize(id: 1, size: 12), EmojiSize(id: 2, size: 1024)]), .deleteEmojis(ids: [3]),
            .restoreEmojis([
                PlacedEmoji(index: 0, emoji: Emoji(id: 3, text: "🇫🇷", position: Point(x: 5, y: -6), size: 9))
            ]),
            .retitle("\"Quoted\" <b>\\ 🎉\n"),
            .replaceEmoji(ids: [1, 2], text: "🧑🏽‍🤝‍🧑🏿"),
            .setEmojiTexts([EmojiText(id: 1, text: "🐶"), EmojiText(id: 2, text: "\"")]),
        ]
        #expect(try Edit.decodeList(Edit.encodeList(edits)) == edits)
        #expect(try edits.map { try Edit(json: $0.json) } == edits)
    }

    @Test func submissionsReadBothFormsAndNameBadFields() throws {
        let one = try EditSubmission(
            json: Array(#"{"baseVersion":3,"edit":{"type":"deleteEmojis","ids":[1]},"gesture":"g"}"#.utf8))
        #expect(one == EditSubmission(baseVersion: 3, edits: [.deleteEmojis(ids: [1])], gesture: "g"))
        let many = try EditSubmission(json: Array(#"{"baseVersion":0,"edits":[{"type":"retitle","title":"A"}]}"#.utf8))
        #expect(many.edits == [.retitle("A")])
        #expect(many.gesture == nil)
        let cases: [(String, String?)] = [
            (#"{"edits":[]}"#, "baseVersion"),
            (#"{"baseVersion":0}"#, nil),
            (#"{"baseVersion":0,"edits":[{"type":"moveEmojis","ids":"1","offset":{"x":1,"y":1}}]}"#, "edits[0].ids"),
            (#"{"baseVersion":0,"edits":[{"type":"moveEmojis","ids":[1],"offset":{"x":1}}]}"#, "edits[0].offset.y"),
            (#"{"baseVersion":0,"edit":{"type":"explode"}}"#, "edit.type"),
            (#"{"baseVersion":0,"edit":{"type":"resizeEmojis","ids":[1],"scale":"big"}}"#, "edit.scale"),
            (#"{"baseVersion":0,"edit":{"type":"setBackground","background":"ftp://x"}}"#, "edit.background"),
        ]
        for (json, path) in cases {
            let error = #expect(throws: EmojiArtError.self, "\(json)") { try EditSubmission(json: Array(json.utf8)) }
            #expect(error?.path == path, "\(json): \(String(describing: error))")
        }
    }

    @Test func editsRoundTripThroughJSON() throws {
        let edits: [Edit] = [
            .setBackground(.none),
            .setBackground(.url(URL(string: "https://example.com/x.png")!)),
            .setBackground(.image(data: pngBytes, mimeType: "image/png")),
            .addEmoji(text: "🚚", position: Point(x: 1, y: -2), size: 40),
            .moveEmojis(ids: [1, 2], offset: Point(x: 3, y: 4)),
            .resizeEmojis(ids: [1], scale: 1.25),
            .setEmojiSizes([EmojiSize(id: 1, size: 12)]),
            .deleteEmojis(ids: [3]),
            .restoreEmojis([PlacedEmoji(index: 0, emoji: Emoji(id: 3, text: "😀", position: .zero, size: 9))]),
            .retitle("<b>Title</b>"),
        ]
        for edit in edits {
            let bytes = edit.json
            #expect(try Edit(json: bytes) == edit, "\(String(decoding: bytes, as: UTF8.self))")
        }
        let wire = #"{"type":"moveEmojis","ids":[4],"offset":{"x":-3,"y":2}}"#
        #expect(try Edit(json: Array(wire.utf8)) == .moveEmojis(ids: [4], offset: Point(x: -3, y: 2)))
        #expect(String(decoding: Edit.moveEmojis(ids: [4], offset: Point(x: -3, y: 2)).json, as: UTF8.self) == wire)
        let unknown = #expect(throws: EmojiArtError.self) { try Edit(json: Array(#"{"type":"explode"}"#.utf8)) }
        #expect(unknown?.path == "type")
    }
}
