import Synchronization

/// Text made once, by whoever asks first, and shared with everyone who asks after: a change
/// sent to a thousand windows is encoded for the first and reused for the rest.
public final class SharedText: Sendable {
    private let text = Mutex<String?>(nil)

    public init() {}

    /// The text, made by `make` if no one has asked before. `make` runs under a lock, so it
    /// must be quick (encoding one change, not a whole document).
    public func value(_ make: () -> String) -> String {
        text.withLock { text in
            if let text { return text }
            let made = make()
            text = made
            return made
        }
    }
}
