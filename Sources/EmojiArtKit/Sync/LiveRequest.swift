/// A message a window sends over its live connection (docs/API.md, "Live documents").
public enum LiveRequest: Equatable, Sendable {
    /// `{"type": "edit", "requestId": "…", "baseVersion": 12, "edits": [Edit], "gesture": "…"}`
    /// (or `"edit": Edit`), as the HTTP edit API takes it.
    case edit(requestID: String, EditSubmission)
    /// `{"type": "undo", "requestId": "…"}`
    case undo(requestID: String)
    /// `{"type": "redo", "requestId": "…"}`
    case redo(requestID: String)

    /// Longest request id accepted.
    public static let maximumRequestIDLength = 64

    public var requestID: String {
        switch self {
        case .edit(let requestID, _), .undo(let requestID), .redo(let requestID): requestID
        }
    }

    /// Parses a message; throws an error naming what is wrong.
    public init(json bytes: [UInt8]) throws {
        let root = JSONField(try JSONParser.parse(bytes))
        let requestIDField = try root.required("requestId")
        let requestID = try requestIDField.string()
        guard (1...LiveRequest.maximumRequestIDLength).contains(requestID.count) else {
            throw requestIDField.failure("a request id has 1 to \(LiveRequest.maximumRequestIDLength) characters.")
        }
        let type = try root.required("type")
        switch try type.string() {
        case "edit": self = .edit(requestID: requestID, try EditSubmission(root: root))
        case "undo": self = .undo(requestID: requestID)
        case "redo": self = .redo(requestID: requestID)
        default: throw type.failure("the type is \"edit\", \"undo\" or \"redo\".")
        }
    }
}
