import Testing

@testable import EmojiArtLive

/// Who writes a live document's batches, decided as a value: events in, actions out, no tasks.
@Suite struct DocumentWriterTests {
    @Test func theFirstCallerWritesAndLaterOnesWait() {
        var writer = DocumentWriter()
        #expect(writer.arrive(for: 1) == .write)
        guard case .wait(let second) = writer.arrive(for: 2), case .wait(let third) = writer.arrive(for: 3) else {
            Issue.record("later callers wait")
            return
        }
        #expect(second != third && writer.waiterCount == 2)
        // The writer's batch settled 1 and 2: the caller waiting on 2 hears it; 3 still waits.
        let told = writer.settled([1, 2])
        #expect(told.map(\.waiter) == [second] && told.map(\.ticket) == [2])
        #expect(writer.waiterCount == 1)
        // 3 is staged: the writing goes to its caller, and the writer stays busy.
        #expect(writer.handOver(staged: [3], replicaIdle: false, closed: false) == .handTo(third))
        #expect(writer.isWriting && writer.waiterCount == 0)
        // 3's caller, done, finds nothing left and stops.
        #expect(writer.handOver(staged: [], replicaIdle: true, closed: false) == .stop(idle: []))
        #expect(!writer.isWriting)
        #expect(writer.arrive(for: 4) == .write)
    }

    @Test func aResentRequestWaitsOnItsOriginalsTicket() {
        var writer = DocumentWriter()
        _ = writer.arrive(for: 7)
        let first = writer.arrive(for: 8)
        let resent = writer.arrive(for: 8)
        let told = writer.settled([8])
        #expect(told.count == 2 && told.allSatisfy { $0.ticket == 8 })
        if case .wait(let a) = first, case .wait(let b) = resent { #expect(Set(told.map(\.waiter)) == [a, b]) }
    }

    @Test func stagedWorkNobodyWaitsForIsWrittenByTheWriter() {
        var writer = DocumentWriter()
        _ = writer.arrive(for: 1)
        // Something is staged but its caller isn't waiting (yet): the writer writes it itself.
        #expect(writer.handOver(staged: [2], replicaIdle: false, closed: false) == .writeStaged)
        #expect(writer.isWriting)
    }

    @Test func anotherServersChangeHeardWhileWritingIsReadBeforeTheWriterStops() {
        var writer = DocumentWriter()
        _ = writer.arrive(for: 1)
        let now = writer.catchUpHeard()
        #expect(!now)  // the writer will
        #expect(writer.role == .writing(catchUpWanted: true))
        #expect(writer.handOver(staged: [], replicaIdle: true, closed: false) == .catchUp)
        #expect(writer.handOver(staged: [], replicaIdle: true, closed: false) == .stop(idle: []))
        // Nobody writing: whoever hears it catches up at once, as the writer.
        let atOnce = writer.catchUpHeard()
        #expect(atOnce && writer.isWriting)
    }

    @Test func aConflictsReadAsksForOneMoreRead() {
        var writer = DocumentWriter()
        writer.wantCatchUp()  // not writing: nothing to remember
        #expect(writer.role == .idle)
        _ = writer.arrive(for: 1)
        writer.wantCatchUp()
        #expect(writer.handOver(staged: [], replicaIdle: true, closed: false) == .catchUp)
    }

    @Test func aCallerThatMustCatchUpWaitsForTheWriterToStop() {
        var writer = DocumentWriter()
        _ = writer.arrive(for: 1)
        guard case .afterIdle(let behind) = writer.catchUpBeforeSubmitting() else {
            Issue.record("waits while someone writes")
            return
        }
        #expect(writer.handOver(staged: [], replicaIdle: true, closed: false) == .stop(idle: [behind]))
        #expect(writer.catchUpBeforeSubmitting() == .now)
        #expect(writer.isWriting)
        // Released once: the next stop has nobody to release.
        #expect(writer.handOver(staged: [], replicaIdle: true, closed: false) == .stop(idle: []))
    }

    @Test func aClosedCopyStopsAndEveryWaiterIsTold() {
        var writer = DocumentWriter()
        _ = writer.arrive(for: 1)
        _ = writer.arrive(for: 2)
        _ = writer.arrive(for: 3)
        guard case .afterIdle(let behind) = writer.catchUpBeforeSubmitting() else {
            Issue.record("waits while someone writes")
            return
        }
        // Closed: no hand-over even though 2 is staged with a caller.
        #expect(writer.handOver(staged: [2, 3], replicaIdle: false, closed: true) == .stop(idle: [behind]))
        #expect(!writer.isWriting)
        let told = writer.failAll()
        #expect(Set(told.map(\.ticket)) == [2, 3] && writer.waiterCount == 0)
    }

    /// Random sequences: every caller that waits is told exactly once (settled, handed the
    /// writing, or failed), and there is never more than one writer.
    @Test(arguments: 0..<50)
    func everyWaiterIsToldExactlyOnce(seed: UInt64) {
        var random = SplitMix(seed: seed)
        var writer = DocumentWriter()
        var waiting: [DocumentWriter.Waiter: DocumentWriter.Ticket] = [:]
        var told: [DocumentWriter.Waiter] = []
        var writers = 0
        var staged: [DocumentWriter.Ticket] = []
        var nextTicket = 0
        for _ in 0..<200 {
            switch random.next() % 4 {
            case 0, 1:
                nextTicket += 1
                staged.append(nextTicket)
                switch writer.arrive(for: nextTicket) {
                case .write: writers += 1
                case .wait(let waiter): waiting[waiter] = nextTicket
                }
            case 2 where writers == 1 && !staged.isEmpty:
                let count = Int(random.next() % UInt64(staged.count)) + 1
                let settled = Array(staged.prefix(count))
                staged.removeFirst(count)
                for (waiter, ticket) in writer.settled(settled) {
                    #expect(waiting.removeValue(forKey: waiter) == ticket)
                    told.append(waiter)
                }
            default:
                guard writers == 1 else { continue }
                switch writer.handOver(staged: staged, replicaIdle: staged.isEmpty, closed: false) {
                case .handTo(let waiter):
                    #expect(waiting.removeValue(forKey: waiter) != nil)
                    told.append(waiter)
                case .writeStaged: staged.removeAll()
                case .catchUp: break
                case .stop: writers -= 1
                }
            }
            #expect(writers <= 1)
            #expect(writer.isWriting == (writers == 1))
        }
        for (waiter, _) in writer.failAll() {
            #expect(waiting.removeValue(forKey: waiter) != nil)
            told.append(waiter)
        }
        #expect(waiting.isEmpty)
        #expect(Set(told).count == told.count)
    }
}

/// A small seeded generator, so a failing seed replays.
private struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
