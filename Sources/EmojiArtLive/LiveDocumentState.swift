import EmojiArtKit
import Foundation

/// A live document's state at one version.
public struct LiveDocumentState: Sendable, Equatable {
    public var id: UUID
    public var document: EmojiArtDocument
    public var version: Int
    public var undoActionName: String?
    public var redoActionName: String?
    public var createdAt: Date
    public var updatedAt: Date
    /// Where the server is in getting the background image (for the committed background).
    public var backgroundState: BackgroundState = .none

    public init(
        id: UUID, document: EmojiArtDocument, version: Int, undoActionName: String?, redoActionName: String?,
        createdAt: Date, updatedAt: Date, backgroundState: BackgroundState = .none
    ) {
        self.id = id
        self.document = document
        self.version = version
        self.undoActionName = undoActionName
        self.redoActionName = redoActionName
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.backgroundState = backgroundState
    }
}

/// Why a live document refused a request.
public enum LiveDocumentError: Error, Equatable, CustomStringConvertible {
    /// The edits no longer apply to the document as it is now; reload and retry.
    case conflict(currentVersion: Int, reason: String)
    /// This copy was unloaded; the library retries on a fresh copy.
    case unloaded
    /// This copy was closed because its document was deleted.
    case deleted
    /// The store refused a commit; nothing after the last acknowledged change was kept.
    case storeFailed(String)
    /// The store can't be reached (the database is down); nothing after the last acknowledged
    /// change was kept, and asking again once it is back works.
    case storeUnavailable(String)
    /// An undo with nothing to undo (another window may have undone it first).
    case nothingToUndo
    /// A redo with nothing to redo.
    case nothingToRedo
    /// The edits are refused as they would be whatever came first (a locked emoji): the core's
    /// error, answered as it is.
    case refused(EmojiArtError)
    /// A keyed request (``RequestKey``) under a key another request already took: not applied.
    case keyReused

    public var description: String {
        switch self {
        case .conflict(let version, let reason):
            "the document changed since your last view (now version \(version)) and the change no longer applies: \(reason) Reload and try again."
        case .unloaded: "the document was closed; try again."
        case .deleted: "the document was deleted."
        case .storeFailed(let reason): "the change could not be saved (\(reason)); it was not kept."
        case .storeUnavailable: "the database can't be reached, so the change was not kept; try again in a moment."
        case .nothingToUndo: "there is nothing to undo."
        case .nothingToRedo: "there is nothing to redo."
        case .refused(let error): error.description
        case .keyReused:
            "this key was already used for a different request, so this one was not applied; send a new change with a new key."
        }
    }
}
