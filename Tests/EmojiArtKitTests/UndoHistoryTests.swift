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

    /// The steps are kept in chunks: against a plain model, over every chunk boundary and limit,
    /// the same steps are undone and redone, and a copy of a session is unchanged by its original.
    @Test(arguments: [1, 3, 63, 64, 65, 130])
    func chunkedStepsUndoAndRedoAsOneListWould(limit: Int) throws {
        var session = EditingSession(document: try makeDocument(emojiCount: 1), undoLimit: limit)
        var (current, undo, redo) = (session.document.title, [String](), [String]())
        var random: UInt64 = UInt64(limit) &* 0x9E37_79B9_7F4A_7C15
        var copies: [(EditingSession, String)] = []
        for step in 0..<1_500 {
            random = random &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            switch random >> 33 % 10 {
            case 0..<6:
                let title = "Title \(step)"
                try session.perform(.retitle(title))
                undo.append(current)
                if undo.count > limit { undo.removeFirst() }
                (current, redo) = (title, [])
            case 6..<8:
                let undone = try session.undo()
                #expect((undone != nil) == !undo.isEmpty)
                if let title = undo.popLast() { (redo, current) = (redo + [current], title) }
            default:
                let redone = try session.redo()
                #expect((redone != nil) == !redo.isEmpty)
                if let title = redo.popLast() {
                    undo.append(current)
                    if undo.count > limit { undo.removeFirst() }
                    current = title
                }
            }
            #expect(session.document.title == current && session.history.undoSteps.count == undo.count)
            if step % 250 == 0 { copies.append((session, current)) }
        }
        for (copy, title) in copies { #expect(copy.document.title == title) }
        var copy = try #require(copies.last).0
        let titleBefore = copy.document.title
        if try copy.undo() != nil { _ = try copy.redo() }
        #expect(copy.document.title == titleBefore)
    }

    @Test func aFailedUndoKeepsTheStep() throws {
        var session = EditingSession(document: try makeDocument(emojiCount: 2))
        try session.perform(.moveEmojis(ids: [1], offset: Point(x: 1, y: 0)))
        #expect(session.history.canUndo)
        #expect(try session.undo() == [.moveEmojis(ids: [1], offset: Point(x: -1, y: 0))])
        #expect(try session.redo() == [.moveEmojis(ids: [1], offset: Point(x: 1, y: 0))])
    }
}
