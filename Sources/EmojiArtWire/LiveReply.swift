/// The answer to a window's request (`ack` or `refused`, docs/API.md).
public enum LiveReply: Sendable, Equatable {
    /// Applied and committed as `version` (or, with nothing to undo or redo, unchanged at it).
    case acknowledged(requestID: String, version: Int)
    /// Refused; nothing changed. `code` is the API's error code.
    case refused(requestID: String, code: String, message: String, currentVersion: Int?)

    public var requestID: String {
        switch self {
        case .acknowledged(let requestID, _), .refused(let requestID, _, _, _): requestID
        }
    }
}
