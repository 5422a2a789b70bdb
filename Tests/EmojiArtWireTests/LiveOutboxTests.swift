import EmojiArtKit
import EmojiArtLive
import Foundation
import Testing

@testable import EmojiArtWire

/// The order a connection writes in: each reply after the change it acknowledges, replies in
/// request order, and nothing after a close.
struct LiveOutboxTests {
    private func change(_ version: Int) -> LiveOutbox.Item {
        .event(
            .change(
                LiveChange(
                    version: version, patch: DocumentPatch(nextEmojiID: 1), undoActionName: nil, redoActionName: nil,
                    updatedAt: Date(timeIntervalSince1970: 0))))
    }

    private func ack(_ id: String, _ version: Int) -> LiveOutbox.Item {
        .reply(.acknowledged(requestID: id, version: version))
    }

    private func refused(_ id: String) -> LiveOutbox.Item {
        .reply(.refused(requestID: id, code: "conflict", message: "No.", currentVersion: 3))
    }

    /// Each write as a short label: `change N`, `ack ID`, `refused ID`, `close CODE`.
    private func labels(_ writes: [LiveOutbox.Write]) throws -> [String] {
        try writes.map { write in
            switch write {
            case .close(let code, _): return "close \(code.rawValue)"
            case .text(let text):
                let object = try #require(
                    try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
                let type = try #require(object["type"] as? String)
                switch type {
                case "change": return "change \(try #require(object["version"] as? Int))"
                case "ack", "refused": return "\(type) \(try #require(object["requestId"] as? String))"
                default: return type
                }
            }
        }
    }

    private func run(_ items: [LiveOutbox.Item], from version: Int = 0) throws -> [String] {
        var outbox = LiveOutbox(sentVersion: version)
        return try items.flatMap { try labels(outbox.receive($0)) }
    }

    /// A change to a document many windows follow is encoded by the first outbox to send it;
    /// every other outbox sends that same text.
    @Test func aChangeIsEncodedOnceForEveryWindow() throws {
        let item = change(4)
        guard case .event(.change(let shared)) = item else { return }
        var first = LiveOutbox(sentVersion: 3)
        var second = LiveOutbox(sentVersion: 3)
        let written = first.receive(item)
        #expect(shared.encoded.value { "encoded again" } != "encoded again")
        #expect(second.receive(item) == written)
        #expect(try labels(written) == ["change 4"])
    }

    @Test func anAcknowledgementWaitsForItsChange() throws {
        #expect(try run([ack("a", 1), change(1)]) == ["change 1", "ack a"])
        #expect(try run([change(1), ack("a", 1)]) == ["change 1", "ack a"])
    }

    @Test func anAcknowledgementOfAVersionTheWindowHasGoesAtOnce() throws {
        // A resend of a request applied long ago, or an undo with nothing to undo.
        #expect(try run([ack("old", 4)], from: 7) == ["ack old"])
    }

    @Test func repliesKeepTheOrderOfTheRequests() throws {
        // The refusal came second, so it waits behind the acknowledgement that waits for 2.
        #expect(
            try run([change(1), ack("a", 2), refused("b"), ack("c", 3), change(2), change(3)]) == [
                "change 1", "change 2", "ack a", "refused b", "change 3", "ack c",
            ])
        #expect(try run([refused("b")]) == ["refused b"])
    }

    @Test func aDeletedDocumentEndsTheConnectionAndDropsWhatWaits() throws {
        #expect(try run([ack("a", 5), .event(.deleted), change(5)]) == ["deleted", "close 4404"])
    }

    @Test func aClosedCopyEndsTheConnectionForAReconnect() throws {
        // The held acknowledgement is not written: the window resends that request on
        // reconnecting, and the log recognises it.
        #expect(try run([ack("a", 1), .event(.closed), change(1), ack("b", 0)]) == ["close 4503"])
    }

    @Test func aStreamThatEndsMeansTheWindowFellBehind() throws {
        #expect(try run([change(1), .eventsEnded, .eventsEnded]) == ["change 1", "close 4408"])
    }

    @Test func backgroundStatesGoOutAsTheyCome() throws {
        #expect(try run([ack("a", 1), .event(.background(.none)), change(1)]) == ["background", "change 1", "ack a"])
    }
}
