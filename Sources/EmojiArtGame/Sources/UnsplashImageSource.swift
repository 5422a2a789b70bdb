import AsyncHTTPClient
import EmojiArtFetch
import Foundation
import NIOCore
import NIOHTTP1

/// Pictures from an Unsplash-compatible random-photo API: `GET {base}/photos/random` with
/// `Authorization: Client-ID <key>`, answered with `{"urls": {"regular": "<image address>"}}`.
/// The image itself is then downloaded through the server's safe fetcher (the API chooses the
/// address, so it gets no more trust than a document's background) into the image store.
///
/// Unsplash allows a demo key 50 calls an hour and says how many are left in
/// `X-Ratelimit-Remaining`. The source remembers that count, shows it, and once it is spent
/// refuses further calls itself — with a clear message — until the hour is over, rather than
/// spending the player's time on answers it knows will be 403s. Calls under way count against
/// it, so two concurrent calls with one left do not both go out.
public actor UnsplashImageSource: GameImageSource {
    public struct Configuration: Sendable {
        public static let defaultBaseURL = URL(string: "https://api.unsplash.com")!

        public var baseURL: URL
        public var accessKey: String
        /// For the API call; the download has the fetcher's own limits.
        public var timeout: Duration
        /// Calls an hour, until the API says otherwise (`X-Ratelimit-Limit`).
        public var hourlyLimit: Int

        public init(
            baseURL: URL = Configuration.defaultBaseURL, accessKey: String, timeout: Duration = .seconds(10),
            hourlyLimit: Int = 50
        ) {
            self.baseURL = baseURL
            self.accessKey = accessKey
            self.timeout = timeout
            self.hourlyLimit = hourlyLimit
        }
    }

    /// The longest API answer read; a random photo's JSON is a few kilobytes.
    public static let maximumAnswerBytes = 512 * 1024

    public let configuration: Configuration
    private let fetcher: ImageFetcher
    private let images: GameImageStore
    private var callLimit: Int
    private var remainingCalls: Int?
    private var callsUnderWay = 0
    /// When ``remainingCalls`` was last taken from an answer.
    private var allowanceNotedAt: ContinuousClock.Instant?
    /// When the allowance was found spent; calls are refused for an hour from then.
    private var exhaustedAt: ContinuousClock.Instant?

    public init(configuration: Configuration, fetcher: ImageFetcher, images: GameImageStore) {
        self.configuration = configuration
        self.fetcher = fetcher
        self.images = images
        self.callLimit = configuration.hourlyLimit
    }

    public func randomImage() async throws(GameImageError) -> GameImage {
        let address = try await randomPhotoAddress()
        do {
            let fetched = try await fetcher.fetch(address)
            return try await images.keep(fetched.data, name: "the picture at \(address.host ?? "the given address")")
        } catch let error as GameImageError {
            throw error
        } catch let error as FetchError {
            throw Self.gameError(error)
        } catch {
            throw .other(String(describing: error))
        }
    }

    public func status() async -> GameSourceStatus {
        // Calls under way will use up the allowance too: the count shown already leaves them out.
        GameSourceStatus(
            name: "Unsplash", remainingCalls: remainingCalls.map { max(0, $0 - callsUnderWay) }, callLimit: callLimit)
    }

    /// The client for the API. Its connection attempts are not retried: an API that refuses
    /// connections is reported as unreachable at once, not as a timeout later.
    private static let httpClient: HTTPClient = {
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.timeout.connect = .seconds(5)
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }()

    /// The API call: one random photo's `urls.regular`.
    private func randomPhotoAddress() async throws(GameImageError) -> URL {
        try checkAllowance()
        callsUnderWay += 1
        defer { callsUnderWay -= 1 }

        var request = HTTPClientRequest(
            url: configuration.baseURL.appendingPathComponent("photos/random").absoluteString)
        request.headers.add(name: "Authorization", value: "Client-ID \(configuration.accessKey)")
        request.headers.add(name: "Accept-Version", value: "v1")
        request.headers.add(name: "Accept", value: "application/json")
        let response: HTTPClientResponse
        let body: ByteBuffer
        let deadline = ContinuousClock.now + configuration.timeout
        do {
            response = try await Self.httpClient.execute(request, deadline: .now() + .init(configuration.timeout))
            noteAllowance(response.headers)
            body = try await response.body.collect(upTo: Self.maximumAnswerBytes)
        } catch let error as NIOTooManyBytesError {
            throw .undecodable("the answer is larger than \(Self.maximumAnswerBytes / 1024) KB: \(error)")
        } catch {
            if ContinuousClock.now >= deadline || (error as? HTTPClientError) == .deadlineExceeded {
                throw .other("the image service didn't answer within \(configuration.timeout)")
            }
            throw .other("the image service can't be reached, because \(ConnectionFailure.reason(error))")
        }
        switch response.status.code {
        case 200:
            break
        case 403 where remainingCalls == 0 || String(buffer: body).localizedCaseInsensitiveContains("rate limit"),
            429:
            remainingCalls = 0
            exhaustedAt = ContinuousClock.now
            throw .rateLimited(exhaustedMessage)
        default:
            throw .badStatus(Int(response.status.code))
        }
        struct Answer: Decodable {
            struct URLs: Decodable { var regular: String }
            var urls: URLs
        }
        guard let answer = try? JSONDecoder().decode(Answer.self, from: Data(body.readableBytesView)) else {
            throw .undecodable("no urls.regular in the answer")
        }
        guard let url = URL(string: answer.urls.regular), let scheme = url.scheme?.lowercased(),
            scheme == "https" || scheme == "http", url.host?.isEmpty == false
        else {
            throw .invalidURL("\"\(answer.urls.regular.prefix(200))\" is not an http(s) address")
        }
        return url
    }

    private func checkAllowance() throws(GameImageError) {
        if let exhaustedAt, ContinuousClock.now - exhaustedAt >= .seconds(3600) {
            self.exhaustedAt = nil
            remainingCalls = nil
        }
        guard let remainingCalls else { return }
        if remainingCalls - callsUnderWay <= 0 {
            if exhaustedAt == nil { exhaustedAt = ContinuousClock.now }
            throw .rateLimited(exhaustedMessage)
        }
    }

    private func noteAllowance(_ headers: HTTPHeaders) {
        if let limit = headers.first(name: "X-Ratelimit-Limit").flatMap(Int.init), limit > 0 { callLimit = limit }
        if let remaining = headers.first(name: "X-Ratelimit-Remaining").flatMap(Int.init) {
            // Answers to calls made close together arrive in any order: the lowest count is the
            // latest. A higher count means the hourly allowance started again — believed only
            // when the last count is more than a minute old.
            let latest = max(0, remaining)
            let now = ContinuousClock.now
            if let current = remainingCalls, latest > current, let noted = allowanceNotedAt, now - noted < .seconds(60)
            {
                return
            }
            remainingCalls = latest
            allowanceNotedAt = now
            if remaining <= 0 { exhaustedAt = exhaustedAt ?? ContinuousClock.now }
        }
    }

    private var exhaustedMessage: String {
        let minutes =
            exhaustedAt.map { max(1, 60 - Int((ContinuousClock.now - $0).components.seconds / 60)) } ?? 60
        return "Unsplash's allowance of \(callLimit) calls an hour is used up. "
            + "Play again in about \(minutes) minute\(minutes == 1 ? "" : "s"), "
            + "or start the server without an Unsplash key to play with emoji tiles."
    }

    static func gameError(_ error: FetchError) -> GameImageError {
        switch error {
        case .invalidURL, .refused: .invalidURL(error.description)
        case .badStatus(let status): .badStatus(status)
        case .tooLarge, .notAnImage: .invalidImage(error.description)
        case .tooManyRedirects, .timedOut, .network: .other(error.description)
        }
    }
}
