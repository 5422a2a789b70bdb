import EmojiArtKit
import Synchronization
import Testing

/// The one fan-out: callback subscribers hear each event on the sender's thread, are dropped
/// when they refuse one, and hear the end exactly once however it comes.
struct BroadcasterTests {
    final class Log: Sendable {
        let entries = Mutex<[String]>([])
        func add(_ entry: String) { entries.withLock { $0.append(entry) } }
        var all: [String] { entries.withLock { $0 } }
    }

    @Test func aSubscriberThatRefusesAnEventIsDroppedAndEndedOnce() {
        let broadcaster = Broadcaster<Int>(policy: .dropAfter(4))
        let log = Log()
        _ = broadcaster.subscribe(
            receive: { event in
                log.add("got \(event)")
                return event < 2
            }, ended: { log.add("ended") })
        for event in 1...3 { broadcaster.send(event) }
        broadcaster.finishAll(with: 9)
        #expect(log.all == ["got 1", "got 2", "ended"])
        #expect(broadcaster.count == 0)
    }

    @Test func finishingSendsTheLastEventThenTheEnd() {
        let broadcaster = Broadcaster<Int>(policy: .dropAfter(4))
        let log = Log()
        let id = broadcaster.subscribe(receive: { log.add("got \($0)") == () }, ended: { log.add("ended") })
        broadcaster.send(1)
        broadcaster.finishAll(with: 2)
        broadcaster.unsubscribe(id)  // already ended: not ended again
        #expect(log.all == ["got 1", "got 2", "ended"])
    }

    @Test func aStreamSubscriberThatFallsBehindIsDropped() async {
        let broadcaster = Broadcaster<Int>(policy: .dropAfter(2))
        let (events, _) = broadcaster.subscribe()
        for event in 1...3 { broadcaster.send(event) }
        #expect(broadcaster.count == 0)
        var heard: [Int] = []
        for await event in events { heard.append(event) }
        #expect(heard == [1, 2])
    }

    @Test func aStreamKeepingTheNewestIsNeverDropped() async {
        let broadcaster = Broadcaster<Int>(policy: .newest(1))
        let (events, continuation) = broadcaster.subscribe()
        for event in 1...3 { broadcaster.send(event) }
        #expect(broadcaster.count == 1)
        continuation.finish()
        var heard: [Int] = []
        for await event in events { heard.append(event) }
        #expect(heard == [3])
        #expect(broadcaster.count == 0)
    }
}
