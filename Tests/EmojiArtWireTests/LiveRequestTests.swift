import EmojiArtKit
import Testing

@testable import EmojiArtWire

/// Reading what windows send: a request that is not one names what is wrong.
struct LiveRequestTests {
    private func request(_ json: String) throws -> LiveRequest {
        try LiveRequest(json: Array(json.utf8))
    }

    @Test func readsEditsUndoAndRedo() throws {
        let edit = try request(
            #"{"type":"edit","requestId":"r1","baseVersion":3,"edit":{"type":"retitle","title":"Hi"}}"#)
        #expect(edit.requestID == "r1")
        guard case .edit(_, let submission) = edit else {
            Issue.record("not an edit: \(edit)")
            return
        }
        #expect(submission.baseVersion == 3)
        #expect(try request(#"{"type":"undo","requestId":"u"}"#) == .undo(requestID: "u"))
        #expect(try request(#"{"type":"redo","requestId":"r"}"#) == .redo(requestID: "r"))
    }

    @Test(arguments: [
        #"{"type":"undo"}"#,
        #"{"type":"undo","requestId":""}"#,
        #"{"type":"undo","requestId":"\#(String(repeating: "x", count: 65))"}"#,
        #"{"type":"jump","requestId":"a"}"#,
        #"{"type":"undo","requestId":7}"#,
        #"[1]"#,
        #"{"type":"edit","requestId":"a"}"#,
        // The REST API's ids (its Idempotency-Key's): a window can't take one.
        #"{"type":"undo","requestId":"key visitor undo k"}"#,
        "not json",
    ])
    func refusesWhatIsNotARequest(_ json: String) {
        #expect(throws: EmojiArtError.self) { try request(json) }
    }

    @Test func readsGameIntents() throws {
        #expect(try GameIntent(json: #"{"type":"play"}"#) == .play)
        #expect(try GameIntent(json: #"{"type":"stop"}"#) == .stop)
        #expect(try GameIntent(json: #"{"type":"tap","tile":2}"#) == .tap(tile: 2))
        #expect(throws: GameIntent.Unreadable.self) { try GameIntent(json: #"{"type":"tap"}"#) }
        #expect(throws: GameIntent.Unreadable.self) { try GameIntent(json: #"{"type":"dance"}"#) }
        #expect(throws: GameIntent.Unreadable.self) { try GameIntent(json: "{") }
    }
}
