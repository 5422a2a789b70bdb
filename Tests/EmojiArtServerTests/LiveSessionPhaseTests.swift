import Testing

@testable import EmojiArtServer

/// A live connection's life as a value: events in, decisions out.
@Suite struct LiveSessionPhaseTests {
    @Test func messagesWaitForTheOpeningTaskThenStartTheirOwn() {
        var phase = LiveSessionPhase()
        // The opening task works: a message is kept for it, and the socket is not read.
        let first = phase.messageArrived()
        let stopped = phase.taskStopped()
        let second = phase.messageArrived()
        let third = phase.messageArrived()
        #expect(first == .queue && stopped.resumeReading && !stopped.finish)
        #expect(second == .startTask && third == .queue)
    }

    @Test func closingDropsWhatComesAndNothingIsAppliedAfter() {
        var phase = LiveSessionPhase()
        phase.socketClosing()
        #expect(!phase.isOpen)
        let dropped = phase.messageArrived()
        // The task stops: the socket isn't read again (its close is on the way), not yet finished.
        let stopped = phase.taskStopped()
        let finishes = phase.socketClosed()  // closed, no task: finish now
        #expect(dropped == .drop && !stopped.resumeReading && !stopped.finish && finishes)
    }

    /// (the order of the socket's close and the task's stop) → the connection finishes once,
    /// at whichever comes last.
    @Test(arguments: [true, false])
    func theConnectionFinishesOnceWhenTheSocketClosedAndNoTaskIsLeft(closesFirst: Bool) {
        var phase = LiveSessionPhase()
        var finishes = 0
        if closesFirst {
            if phase.socketClosed() { finishes += 1 }
            #expect(finishes == 0)  // the task still works
            if phase.taskStopped().finish { finishes += 1 }
        } else {
            if phase.taskStopped().finish { finishes += 1 }
            if phase.socketClosed() { finishes += 1 }
        }
        #expect(finishes == 1 && phase.work == .finished)
        // Nothing after: a late close, a late message, a late stop.
        let lateClose = phase.socketClosed()
        let lateMessage = phase.messageArrived()
        let lateStop = phase.taskStopped()
        #expect(!lateClose && lateMessage == .drop && !lateStop.finish)
    }

    /// The inbox keeps what the window sent for the working task, in order, and drops it all
    /// once the socket closes.
    @Test func theInboxHandsTheTaskEveryMessageInOrderAndDropsThemOnClosing() {
        var inbox = LiveInbox()
        var events: [String] = []
        func record<T>(_ value: T) { events.append("\(value)") }
        record(inbox.next())  // the opening task stops
        record(inbox.received("a"))
        record(inbox.received("b"))
        record(inbox.received(nil))
        record(inbox.next(ready: false))  // not yet opened: the task stops, the messages wait
        record(inbox.received("c"))
        record(inbox.next())
        record(inbox.next())
        record(inbox.received("d"))
        record(inbox.received("e"))
        inbox.closing()
        record(inbox.messages.count)
        record(inbox.received("f"))
        record(inbox.next())
        record(inbox.closed())
        #expect(
            events == [
                "rest(resumeReading: true, finish: false)", "startTask", "queue", "queue",
                "rest(resumeReading: true, finish: false)", "startTask",
                #"apply([Optional("a"), Optional("b"), nil, Optional("c")])"#,
                "rest(resumeReading: true, finish: false)", "startTask", "queue", "0", "drop",
                "rest(resumeReading: false, finish: false)", "true",
            ])
        #expect(!inbox.isOpen)
    }
}
