import EmojiArtKit
import EmojiArtLive
import EmojiArtStore
import Foundation
import Hummingbird
import Logging
import NIOCore

/// An error as the API reports it: `{"error": {"code", "message"}}` with an HTTP status.
/// Every error the core, the live layer or the store can throw is mapped here, at the edge.
struct APIError: Error, Equatable {
    var status: HTTPResponse.Status
    var code: String
    var message: String
    /// Headers the answer carries besides the body's (`Retry-After`).
    var headers: HTTPFields = [:]

    init(status: HTTPResponse.Status, code: String, message: String, headers: HTTPFields = [:]) {
        self.status = status
        self.code = code
        self.message = message
        self.headers = headers
    }

    /// Nothing says who is asking: no session, token or link.
    static let unauthorized = APIError(
        status: .unauthorized, code: "unauthorized",
        message: "Sign in first (or use an API token, or open a share link).")

    /// The requester may see the document but not make this change.
    static func forbidden(_ message: String) -> APIError {
        APIError(status: .forbidden, code: "forbidden", message: message)
    }

    /// Too many failed attempts; try again after `seconds`.
    static func throttled(retryAfter seconds: Int) -> APIError {
        APIError(
            status: .tooManyRequests, code: "too_many_attempts",
            message: "Too many failed sign-ins from here. Wait "
                + (seconds < 90 ? "\(seconds) seconds" : "\((seconds + 59) / 60) minutes") + ", then try again.",
            headers: [.retryAfter: "\(seconds)"])
    }

    /// What a path no route answers gets.
    static let nothingHere = "There is nothing at this address."

    static func notFound(_ message: String) -> APIError {
        APIError(status: .notFound, code: "not_found", message: message)
    }

    static func badRequest(_ message: String) -> APIError {
        APIError(status: .badRequest, code: "bad_request", message: message)
    }

    static func tooLarge(limit: Int) -> APIError {
        APIError(
            status: .contentTooLarge, code: "too_large",
            message: "The request body is larger than this endpoint's limit of \(limit.formattedBytes).")
    }

    /// The API's view of any error.
    init(_ error: any Error) {
        switch error {
        case let error as APIError:
            self = error
        case let error as EmojiArtError:
            // A field path ("emojis[0].size: …") stays as the file spells it; a bare message
            // becomes a sentence.
            let message = error.path == nil ? error.message.sentenceCased : error.description
            switch error.code {
            case .unknownPalette: self = .notFound(message)
            case .lastPalette: self.init(status: .conflict, code: error.code.rawValue, message: message)
            default: self.init(status: .unprocessableContent, code: error.code.rawValue, message: message)
            }
        case let error as LiveDocumentError:
            switch error {
            case .conflict: self.init(status: .conflict, code: "conflict", message: error.description.sentenceCased)
            case .deleted, .unloaded: self = .notFound("The document was deleted.")
            case .storeFailed:
                self.init(status: .internalServerError, code: "internal", message: error.description.sentenceCased)
            case .storeUnavailable:
                self.init(
                    status: .serviceUnavailable, code: "unavailable", message: error.description.sentenceCased,
                    headers: [.retryAfter: "1"])
            case .nothingToUndo:
                self.init(status: .conflict, code: "nothing_to_undo", message: error.description.sentenceCased)
            case .refused(let inner):
                self.init(inner)
            case .nothingToRedo:
                self.init(status: .conflict, code: "nothing_to_redo", message: error.description.sentenceCased)
            case .keyReused:
                self.init(
                    status: .unprocessableContent, code: "idempotency_key_reused",
                    message: error.description.replacingOccurrences(of: "this key", with: "this Idempotency-Key")
                        .sentenceCased)
            }
        case let error as HistoryError:
            self = .notFound(error.description.sentenceCased)
        case let error as StoreError:
            switch error {
            case .versionConflict:
                self.init(status: .conflict, code: "conflict", message: error.description.sentenceCased)
            case .notFound: self = .notFound(error.description.sentenceCased)
            case .corrupt:
                self.init(status: .internalServerError, code: "internal", message: error.description.sentenceCased)
            case .unavailable:
                self.init(
                    status: .serviceUnavailable, code: "unavailable",
                    message: "The database can't be reached; try again in a moment.", headers: [.retryAfter: "1"])
            }
        case let error as DecodingError:
            self = .badRequest("The request body is not what this endpoint expects: \(error.readableDescription)")
        case is NIOTooManyBytesError:
            self.init(status: .contentTooLarge, code: "too_large", message: "The request body is too large.")
        case let error as any HTTPResponseError:
            let code =
                switch error.status {
                case .notFound: "not_found"
                case .methodNotAllowed: "method_not_allowed"
                case .badRequest: "bad_request"
                case .contentTooLarge: "too_large"
                case .unauthorized: "unauthorized"
                case .forbidden: "forbidden"
                default: error.status.code < 500 ? "bad_request" : "internal"
                }
            let message = error.status == .notFound ? APIError.nothingHere : error.status.reasonPhrase
            self.init(status: error.status, code: code, message: message)
        default:
            self.init(status: .internalServerError, code: "internal", message: "Something went wrong on the server.")
        }
    }

    func response() -> Response {
        struct Body: Encodable {
            struct Detail: Encodable {
                var code: String
                var message: String
            }

            var error: Detail
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let data = (try? encoder.encode(Body(error: .init(code: code, message: message)))) ?? Data()
        var headers = self.headers
        headers[.contentType] = "application/json; charset=utf-8"
        headers[.cacheControl] = "no-store"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}

/// Turns every error thrown by a route (or a missing route) into the API's error body.
/// A failure of ours (5xx) is logged with the request's logger, so its line has the request id.
/// A path that exists with other methods is `405` with `Allow` (``RouteTable``).
struct APIErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    var routes: RouteTable?

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        do {
            return try await next(request, context)
        } catch {
            var apiError = APIError(error)
            if apiError.status == .notFound, apiError.message == APIError.nothingHere,
                let methods = routes?.methods(for: request.uri.path), !methods.contains(request.method.rawValue)
            {
                apiError = APIError(
                    status: .methodNotAllowed, code: "method_not_allowed",
                    message:
                        "\(request.method.rawValue) is not answered here; \(methods.sorted().joined(separator: ", ")) is.",
                    headers: [.allow: methods.sorted().joined(separator: ", ")])
            }
            if apiError.status.code >= 500 {
                // Share links' paths carry their secret: never logged.
                let path = request.uri.path.hasPrefix("/s/") ? "/s/…" : request.uri.path
                // 503: the database is away (already logged once); anything else is a bug.
                context.logger.log(
                    level: apiError.status == .serviceUnavailable ? .warning : .error,
                    "\(request.method) \(path) failed: \(String(reflecting: error))")
            }
            return apiError.response()
        }
    }
}

extension DecodingError {
    /// "edits[0].ids: expected an array" rather than Foundation's debug dump.
    var readableDescription: String {
        func path(_ codingPath: [any CodingKey]) -> String {
            codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
                .trimmingCharacters(in: CharacterSet(charactersIn: "."))
        }
        switch self {
        case .keyNotFound(let key, let context):
            let full = path(context.codingPath + [key])
            return "\(full) is missing."
        case .typeMismatch(let type, let context):
            return "\(path(context.codingPath)) should be \(type)."
        case .valueNotFound(let type, let context):
            return "\(path(context.codingPath)) should be \(type), not null."
        case .dataCorrupted(let context):
            let location = path(context.codingPath)
            return (location.isEmpty ? "" : location + ": ") + context.debugDescription
        @unknown default:
            return "it could not be decoded."
        }
    }
}

extension String {
    /// The core's messages start lower case to read well after a path; API messages are sentences.
    var sentenceCased: String {
        prefix(1).uppercased() + dropFirst()
    }
}

extension Int {
    var formattedBytes: String {
        self >= 1024 * 1024 ? "\(self / (1024 * 1024)) MiB" : "\(self / 1024) KiB"
    }
}
