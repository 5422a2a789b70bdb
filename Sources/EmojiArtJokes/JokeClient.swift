import AsyncHTTPClient
import EmojiArtFetch
import Foundation
import NIOCore

/// A joke from a `{"value": "<joke>", …}` JSON API (PRODUCT.md §3).
public struct Joke: Sendable, Equatable {
    public var text: String
}

/// Why no joke came back. Each case is told to the user; none is swallowed.
public enum JokeError: Error, Equatable, CustomStringConvertible {
    /// The API answered with a status other than 200.
    case badStatus(Int)
    /// The body was not `{"value": "<text>"}`.
    case undecodable(String)
    /// The API could not be reached: why, in plain words (``ConnectionFailure``).
    case network(String)
    /// No answer within the time limit.
    case timeout(seconds: Double)

    /// A short, stable name for the API's error body.
    public var code: String {
        switch self {
        case .badStatus: "bad_status"
        case .undecodable: "undecodable"
        case .network: "network"
        case .timeout: "timeout"
        }
    }

    public var description: String {
        switch self {
        case .badStatus(let status): "The joke service answered with status \(status) instead of a joke."
        case .undecodable(let reason): "The joke service sent something that isn't a joke: \(reason.asClause)."
        case .network(let reason): "Couldn't reach the joke service: \(reason.asClause)."
        case .timeout(let seconds):
            "The joke service didn't answer within \(seconds.formatted(.number.precision(.fractionLength(0...1)))) s."
        }
    }
}

/// Fetches jokes. The fetch lives in this actor, and overlapping requests share one upstream
/// call: whoever asks while a fetch is under way gets that fetch's joke (or error).
public actor JokeClient {
    public static let defaultEndpoint = URL(string: "https://api.chucknorris.io/jokes/random?category=dev")!
    /// The longest joke body read; jokes are short.
    public static let maximumBodyBytes = 64 * 1024

    public let endpoint: URL
    public let timeout: Duration
    private var inFlight: Task<Result<Joke, JokeError>, Never>?
    /// Upstream calls made so far (for tests and logs).
    public private(set) var upstreamCalls = 0

    public init(endpoint: URL = JokeClient.defaultEndpoint, timeout: Duration = .seconds(10)) {
        self.endpoint = endpoint
        self.timeout = timeout
    }

    public func fetch() async throws(JokeError) -> Joke {
        let task: Task<Result<Joke, JokeError>, Never>
        if let inFlight {
            task = inFlight
        } else {
            upstreamCalls += 1
            let (endpoint, timeout) = (self.endpoint, self.timeout)
            task = Task { await Self.request(endpoint, timeout: timeout) }
            inFlight = task
        }
        let result = await task.value
        if inFlight == task { inFlight = nil }
        return try result.get()
    }

    /// The client for the joke API. Its connection attempts are not retried: a service that
    /// refuses connections is reported as unreachable at once, not as a timeout later.
    private static let httpClient: HTTPClient = {
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.timeout.connect = .seconds(5)
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }()

    private static func request(_ endpoint: URL, timeout: Duration) async -> Result<Joke, JokeError> {
        var request = HTTPClientRequest(url: endpoint.absoluteString)
        request.headers.add(name: "Accept", value: "application/json")
        let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) * 1e-18
        let deadline = ContinuousClock.now + timeout
        do {
            let response = try await httpClient.execute(request, timeout: .milliseconds(Int64(seconds * 1000)))
            guard response.status == .ok else { return .failure(.badStatus(Int(response.status.code))) }
            let body = try await response.body.collect(upTo: maximumBodyBytes)
            return decode(Data(body.readableBytesView))
        } catch let error as HTTPClientError where error == .deadlineExceeded || error == .readTimeout {
            return .failure(.timeout(seconds: seconds))
        } catch let error as NIOTooManyBytesError {
            return .failure(.undecodable("more than \(maximumBodyBytes) bytes: \(error)"))
        } catch {
            if ContinuousClock.now >= deadline { return .failure(.timeout(seconds: seconds)) }
            return .failure(.network(ConnectionFailure.reason(error)))
        }
    }

    static func decode(_ data: Data) -> Result<Joke, JokeError> {
        struct Body: Decodable { var value: String }
        guard let body = try? JSONDecoder().decode(Body.self, from: data) else {
            return .failure(.undecodable("no \"value\" text in the JSON"))
        }
        let text = body.value.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty else { return .failure(.undecodable("the joke is empty")) }
        return .success(Joke(text: String(text.prefix(2_000))))
    }
}
