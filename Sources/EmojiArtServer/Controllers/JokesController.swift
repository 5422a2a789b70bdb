import EmojiArtJokes
import Hummingbird

/// `/api/jokes`: the Jokes companion app's source, fetched by the server (the page never
/// contacts the joke service itself).
struct JokesController {
    let jokes: JokeClient

    struct JokeBody: ResponseEncodable {
        var value: String
    }

    func addRoutes(to group: RouterGroup<AppRequestContext>) {
        group.get("random", use: random)
    }

    /// `GET /api/jokes/random` → `{"value": "<joke>"}`, or 502/504 with what went wrong.
    @Sendable func random(_ request: Request, context: AppRequestContext) async throws -> JokeBody {
        // Each joke spends a call to an outside service: for people with an account.
        _ = try context.access.account(for: "fetch jokes")
        do {
            return JokeBody(value: try await jokes.fetch().text)
        } catch {
            let status: HTTPResponse.Status =
                if case .timeout = error { .gatewayTimeout } else { .badGateway }
            throw APIError(status: status, code: error.code, message: error.description)
        }
    }
}
