import EmojiArtKit
import Testing

@Suite("Undo history: names, gestures, limits")
struct UndoHistoryTests {
    @Test func aDragIsOneUndoStep() throws {
        let start = try makeDocument(emojiCount: 3)
        var session = EditingSession(document: start)
        for _ in 0..<30 {
            try session.perform(.moveEmojis(ids: [1, 2], offset: Point(x: 2, y: -1)), gesture: "drag-1")
        }
        #expect(session.history.undoSteps.count == 1)
        #expect(session.history.undoActionName == "Move")
        #expect(session.document.emojis[id: 1]?.position.x == start.emojis[id: 1]!.position.x + 60)
        try session.undo()
        #expect(session.document == start)
        try session.redo()
        #expect(session.document.emojis[id: 2]?.position.y == start.emojis[id: 2]!.position.y - 30)
    }

    @Test func aPinchIsOneUndoStepThatRestoresExactSizes() throws {
        let start = try makeDocument(emojiCount: 2)
        var session = EditingSession(document: start)
        for scale in [1.1, 1.3, 0.7, 1.05, 3.0] {
            try session.perform(.resizeEmojis(ids: [1, 2], scale: scale), gesture: "pinch")
        }
        #expect(session.history.undoSteps.count == 1)
        #expect(session.history.undoActionName == "Resize")
        let resized = session.document
        try session.undo()
        #expect(session.document == start)
        try session.redo()
        #expect(session.document.emojis == resized.emojis)
    }

    @Test func differentGesturesAreDifferentSteps() throws {
        var session = EditingSession(document: try makeDocument(emojiCount: 2))
        try session.perform(.moveEmojis(ids: [1], offset: Point(x: 1, y: 0)), gesture: "a")
        try session.perform(.moveEmojis(ids: [1], offset: Point(x: 1, y: 0)), gesture: "b")
        try session.perform(.moveEmojis(ids: [1], offset: Point(x: 1, y: 0)))
        try session.perform(.moveEmojis(ids: [1], offset: Point(x: 1, y: 0)))
        #expect(session.history.undoSteps.count == 4)
    }

    @Test func aGestureAfterUndoStartsANewStep() throws {
        var session = EditingSession(document: try makeDocument(emojiCount: 2))
        try session.perform(.moveEmojis(ids: [1], offset: Point(x: 1, y: 0)), gesture: "g")
        try session.undo()
        try session.perform(.moveEmojis(ids: [1], offset: Point(x: 5, y: 0)), gesture: "g")
        #expect(session.history.undoSteps.count == 1)
        #expect(!session.history.canRedo)
    }

    @Test func undoEndsTheGestureOfTheStepBelow() throws {
        var session = EditingSession(document: try EmojiArtDocument())
        try session.perform(.addEmoji(text: "😀", position: .zero, size: 40))
        try session.perform(.moveEmojis(ids: [1], offset: Point(x: 10, y: 0)), gesture: "g")
        try session.perform(.addEmoji(text: "🚚", position: .zero, size: 40))
        try session.undo()
        try session.perform(.moveEmojis(ids: [1], offset: Point(x: 5, y: 0)), gesture: "g")
        try session.undo()
        #expect(session.document.emojis[id: 1]?.position == Point(x: 10, y: 0))
    }

    @Test func aGroupOfDifferentEditsIsOneStepNamedAfterTheFirst() throws {
        let start = try makeDocument(emojiCount: 2)
        var session = EditingSession(document: start)
        try session.perform([
            .addEmoji(text: "🚀", position: .zero, size: 40),
            .moveEmojis(ids: [1], offset: Point(x: 3, y: 3)),
            .deleteEmojis(ids: [2]),
        ])
        #expect(session.history.undoActionName == "Add 🚀")
        try session.undo()
        #expect(session.document.emojis == start.emojis)
        #expect(session.history.redoActionName == "Add 🚀")
    }

    @Test func aNewEditClearsRedo() throws {
        var session = EditingSession(document: try makeDocument(emojiCount: 2))
        try session.perform(.deleteEmojis(ids: [1]))
        try session.undo()
        #expect(session.history.redoActionName == "Delete")
        try session.perform(.retitle("New"))
        #expect(!session.history.canRedo)
        #expect(try session.redo() == nil)
    }

    @Test func theStepLimitForgetsTheOldestSteps() throws {
        var session = EditingSession(document: try makeDocument(emojiCount: 1), undoLimit: 5)
        for step in 1...8 {
            try session.perform(.retitle("Title \(step)"))
        }
        #expect(session.history.undoSteps.count == 5)
        while try session.undo() != nil {}
        #expect(session.document.title == "Title 3")
        #expect(EditingSession(document: try EmojiArtDocument()).history.limit == 1000)
    }

    @Test func aFailedUndoKeepsTheStep() throws {
        var session = EditingSession(document: try makeDocument(emojiCount: 2))
        try session.perform(.moveEmojis(ids: [1], offset: Point(x: 1, y: 0)))
        #expect(session.history.canUndo)
        #expect(try session.undo() == [.moveEmojis(ids: [1], offset: Point(x: -1, y: 0))])
        #expect(try session.redo() == [.moveEmojis(ids: [1], offset: Point(x: 1, y: 0))])
    }
}
