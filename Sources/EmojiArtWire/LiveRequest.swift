import EmojiArtKit
import Foundation

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
    /// How the request ids REST changes make from their `Idempotency-Key` start: a window's may
    /// not, so no window can take a REST client's key.
    public static let restPrefix = RequestKey.prefix

    public var requestID: String {
        switch self {
        case .edit(let requestID, _), .undo(let requestID), .redo(let requestID): requestID
        }
    }

    /// Parses a message; throws an error naming what is wrong.
    public init(json bytes: [UInt8]) throws {
        try self.init(root: JSONField(try JSONParser.parse(bytes)))
    }

    package init(root: JSONField) throws {
        let requestIDField = try root.required("requestId")
        let requestID = try requestIDField.string()
        guard (1...LiveRequest.maximumRequestIDLength).contains(requestID.count) else {
            throw requestIDField.failure("a request id has 1 to \(LiveRequest.maximumRequestIDLength) characters.")
        }
        guard !requestID.hasPrefix(LiveRequest.restPrefix) else {
            throw requestIDField.failure("request ids starting \"\(LiveRequest.restPrefix)\" are the REST API's.")
        }
        let type = try root.required("type")
        switch try type.string() {
        case "edit": self = .edit(requestID: requestID, try EditSubmission(root: root))
        case "undo": self = .undo(requestID: requestID)
        case "redo": self = .redo(requestID: requestID)
        default: throw type.failure("the type is \"edit\", \"undo\", \"redo\" or \"presence\".")
        }
    }
}

/// A message a Find or Lose window sends (docs/API.md, "Find or Lose"): `{"type": "play"}`,
/// `{"type": "stop"}` or `{"type": "tap", "tile": 0…3}`.
public enum GameIntent: Equatable, Sendable {
    case play
    case stop
    case tap(tile: Int)

    /// Why a message is not an intent, in words for the close frame.
    public struct Unreadable: Error, Equatable {
        public var reason: String

        public init(reason: String) {
            self.reason = reason
        }
    }

    /// Longest message a game window may send.
    public static let maximumMessageBytes = 1024

    public init(json text: String) throws(Unreadable) {
        struct Body: Decodable {
            var type: String
            var tile: Int?
        }
        guard let body = try? JSONDecoder().decode(Body.self, from: Data(text.utf8)) else {
            throw Unreadable(reason: #"Send {"type": "play" | "stop" | "tap"}."#)
        }
        switch (body.type, body.tile) {
        case ("play", _): self = .play
        case ("stop", _): self = .stop
        case ("tap", let tile?): self = .tap(tile: tile)
        default: throw Unreadable(reason: "Unknown intent \(body.type.prefix(40)).")
        }
    }
}
