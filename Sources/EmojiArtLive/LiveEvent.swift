import EmojiArtKit
import Foundation

/// One committed version, as live windows receive it.
/// Its fields are constants: ``encoded`` caches the wire's text of them.
public struct LiveChange: Sendable, Equatable {
    public let version: Int
    public let patch: DocumentPatch
    public let undoActionName: String?
    public let redoActionName: String?
    public let updatedAt: Date
    /// The live window request that made it (nil for other callers), kept so that a request
    /// resent after a dropped connection is recognised.
    public let requestID: String?
    /// The change as the wire sends it, made by the first window that sends it and shared by
    /// every other: a change to a document a thousand windows follow is encoded once.
    public let encoded = SharedText()

    public init(
        version: Int, patch: DocumentPatch, undoActionName: String?, redoActionName: String?, updatedAt: Date,
        requestID: String? = nil
    ) {
        self.version = version
        self.patch = patch
        self.undoActionName = undoActionName
        self.redoActionName = redoActionName
        self.updatedAt = updatedAt
        self.requestID = requestID
    }

    public static func == (lhs: LiveChange, rhs: LiveChange) -> Bool {
        lhs.version == rhs.version && lhs.patch == rhs.patch && lhs.undoActionName == rhs.undoActionName
            && lhs.redoActionName == rhs.redoActionName && lhs.updatedAt == rhs.updatedAt
            && lhs.requestID == rhs.requestID
    }
}

/// What a live window hears about its document, in order.
public enum LiveEvent: Sendable, Equatable {
    /// A version was committed.
    case change(LiveChange)
    /// The background image's state changed.
    case background(BackgroundState)
    /// The document was deleted; the stream ends.
    case deleted
    /// This copy of the document closed (a failed commit); the stream ends and the window
    /// reconnects to a fresh copy.
    case closed
}

/// A window following a live document by callback: see ``LiveDocument/follow(since:receive:ended:)``.
public struct LiveFollowing: Sendable {
    public var state: LiveDocumentState
    public var missed: [LiveChange]?
    /// Stops following: `ended` is called and the document forgets the window.
    public var end: @Sendable () -> Void
}

/// A window following a live document: see ``LiveDocument/subscribe(since:)``.
public struct LiveSubscription: Sendable {
    public var state: LiveDocumentState
    public var missed: [LiveChange]?
    public var events: AsyncStream<LiveEvent>
    /// Stops following: the stream ends and the document forgets the window.
    public var end: @Sendable () -> Void
}
