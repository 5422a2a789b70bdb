import EmojiArtStore
import EmojiArtWeb
import Foundation
import Hummingbird
import Synchronization

/// The routes for scripts and operators rather than people: `/api/health` (the server
/// answers), `/api/ready` (and its store does), and `/api/openapi.yaml` (the API's contract).
struct ServiceController {
    let store: any DocumentStore
    let settings: AccessSettings
    /// How long the store may take to answer `/api/ready`.
    var readyTimeout: Duration = .seconds(2)

    func addRoutes(to router: Router<AppRequestContext>) {
        router.get("/api/health", use: health)
        router.get("/api/ready", use: ready)
        router.get("/api/openapi.yaml", use: contract)
    }

    struct HealthBody: ResponseEncodable {
        var status: String
        var store: String
        /// `local` or `accounts`, so the sign-in page knows whether there is anything to sign in to.
        var access: String
        var signup: Bool
    }

    struct ReadyBody: ResponseEncodable {
        var status: String
        var store: String
        var message: String?
    }

    /// `GET /api/health`: the server is up (whatever its store says).
    @Sendable func health(_ request: Request, context: AppRequestContext) async throws -> HealthBody {
        HealthBody(
            status: "ok", store: store.kind, access: settings.mode.rawValue,
            signup: settings.mode == .accounts && settings.openSignup)
    }

    /// `GET /api/ready`: `200` once the store answers a query within ``readyTimeout``, else
    /// `503` saying why — for a load balancer to send requests elsewhere meanwhile.
    @Sendable func ready(_ request: Request, context: AppRequestContext) async throws -> EditedResponse<ReadyBody> {
        var headers = HTTPFields()
        headers[.cacheControl] = "no-store"
        do {
            try await Self.within(readyTimeout) { [store] in try await store.ping() }
            return EditedResponse(headers: headers, response: ReadyBody(status: "ready", store: store.kind))
        } catch {
            let message =
                error is TimedOut
                ? "The \(store.kind) store didn't answer within \(readyTimeout)."
                : "The \(store.kind) store can't be reached: \(error)"
            return EditedResponse(
                status: .serviceUnavailable, headers: headers,
                response: ReadyBody(status: "unavailable", store: store.kind, message: message))
        }
    }

    /// `GET /api/openapi.yaml`: the OpenAPI 3.1 contract, from the public folder.
    @Sendable func contract(_ request: Request, context: AppRequestContext) async throws -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/yaml; charset=utf-8"
        headers[.cacheControl] = "no-cache"
        return Response(
            status: .ok, headers: headers,
            body: try await FileIO().loadFile(path: WebFiles.path("openapi.yaml"), context: context))
    }

    struct TimedOut: Error {}

    /// `body`'s result, or ``TimedOut`` after `timeout` even if `body` doesn't notice it was
    /// cancelled (a database connection being opened, say).
    static func within(_ timeout: Duration, _ body: @escaping @Sendable () async throws -> Void) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let answer = Answer(continuation)
            let work = Task {
                do {
                    try await body()
                    answer.give(.success(()))
                } catch { answer.give(.failure(error)) }
            }
            Task {
                try? await Task.sleep(for: timeout)
                answer.give(.failure(TimedOut()))
                work.cancel()
            }
        }
    }

    /// A continuation resumed by whichever comes first, once.
    private final class Answer: Sendable {
        let pending: Mutex<CheckedContinuation<Void, any Error>?>

        init(_ continuation: CheckedContinuation<Void, any Error>) {
            pending = Mutex(continuation)
        }

        func give(_ result: Result<Void, any Error>) {
            pending.withLock { $0.take() }?.resume(with: result)
        }
    }
}
