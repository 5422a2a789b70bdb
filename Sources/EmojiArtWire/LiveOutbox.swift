import EmojiArtLive

/// What one live connection writes, and in what order: the document's events as they come,
/// and each reply to the window's own requests only after the change it acknowledges — so a
/// window that hears `ack` for version N already holds version N. A synchronous value: the
/// connection feeds it what happens and writes what it returns.
///
/// Replies keep the order of the requests. A refusal waits behind an earlier acknowledgement
/// that is itself waiting.
public struct LiveOutbox: Sendable {
    /// Something for the window.
    public enum Item: Sendable, Equatable {
        /// From the document every window follows.
        case event(LiveEvent)
        /// This window's own answer.
        case reply(LiveReply)
        /// The document's stream ended without a last word: the window fell too far behind.
        case eventsEnded
        /// Another window's presence, encoded once for every window: written as it comes.
        case presence(String)
    }

    /// What the connection does next.
    public enum Write: Sendable, Equatable {
        case text(String)
        /// Close with this code and reason; nothing is written after it.
        case close(LiveCloseCode, reason: String)
    }

    /// The newest version the window has been sent.
    public private(set) var sentVersion: Int
    /// Replies waiting for their change, oldest first.
    private var held: [LiveReply] = []
    /// Whether the connection was told to close.
    public private(set) var isClosed = false

    /// A connection whose window has been sent the document at `version`.
    public init(sentVersion version: Int) {
        sentVersion = version
    }

    /// The writes `item` calls for, in order (none once closed).
    public mutating func receive(_ item: Item) -> [Write] {
        guard !isClosed else { return [] }
        switch item {
        case .event(.change(let change)):
            sentVersion = change.version
            return [.text(change.encoded.value { LiveMessages.change(change) })] + released()
        case .event(.background(let state)):
            return [.text(LiveMessages.background(state))]
        case .event(.deleted):
            // Replies still held name versions the window will never get; it learns the
            // document is gone, which answers them.
            return close([.text(LiveMessages.deleted)], .noDocument, "The document was deleted.")
        case .event(.closed):
            // Held replies are dropped: the window resends those requests on reconnecting, and
            // they are recognised there.
            return close([], .documentClosed, "Reconnect.")
        case .eventsEnded:
            return close([], .fellBehind, "Too far behind; reconnect.")
        case .reply(let reply):
            held.append(reply)
            return released()
        case .presence(let text):
            return [.text(text)]
        }
    }

    /// Ends the connection, writing `before` first.
    private mutating func close(_ before: [Write], _ code: LiveCloseCode, _ reason: String) -> [Write] {
        isClosed = true
        held = []
        return before + [.close(code, reason: reason)]
    }

    /// The held replies, oldest first, up to the first whose change the window has not had.
    private mutating func released() -> [Write] {
        var writes: [Write] = []
        while let first = held.first {
            if case .acknowledged(_, let version) = first, version > sentVersion { break }
            writes.append(.text(LiveMessages.reply(first)))
            held.removeFirst()
        }
        return writes
    }
}
