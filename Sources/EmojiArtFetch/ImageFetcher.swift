import AsyncHTTPClient
import EmojiArtKit
import Foundation
import NIOCore
import NIOHTTP1

#if canImport(Glibc)
    import Glibc
#endif

/// Downloads background images without letting a document turn the server against its own
/// network: every hop's host is resolved here, checked against the ``AddressPolicy`` and then
/// connected to at exactly that address; redirects are followed by hand (at most
/// ``Limits/maximumRedirects``); the size cap is enforced while streaming; only 2xx answers
/// count; the bytes, not the headers, decide the image type, and the file's structure is read to
/// its end (``ImageInfo``), so a truncated download is a failure. (Every pixel is decoded when the
/// image is stored: `StoredImage`.) SVG is refused: it is a document that
/// can carry scripts and external references, not a picture we can check.
public struct ImageFetcher: Sendable {
    /// The documented limits (docs/API.md).
    public struct Limits: Sendable {
        public var maximumRedirects = 5
        public var connectTimeout: Duration = .seconds(5)
        public var totalTimeout: Duration = .seconds(20)
        public var maximumBytes = 20 * 1024 * 1024

        public init() {}
    }

    public let policy: AddressPolicy
    public let limits: Limits
    /// Host name → addresses; injected so tests need no DNS.
    let resolve: @Sendable (String) async throws -> [IPAddress]

    public init(
        policy: AddressPolicy = AddressPolicy(), limits: Limits = Limits(),
        resolve: @escaping @Sendable (String) async throws -> [IPAddress] = SystemResolver.addresses(of:)
    ) {
        self.policy = policy
        self.limits = limits
        self.resolve = resolve
    }

    /// Fetches an image, following redirects.
    public func fetch(_ url: URL) async throws(FetchError) -> FetchedImage {
        let deadline = ContinuousClock.now + limits.totalTimeout
        var current = url
        for _ in 0...limits.maximumRedirects {
            switch try await fetchOnce(current, deadline: deadline) {
            case .image(let image):
                return image
            case .redirect(let next):
                current = next
            }
        }
        throw .tooManyRedirects(limits.maximumRedirects)
    }

    private enum Hop {
        case image(FetchedImage)
        case redirect(URL)
    }

    private func fetchOnce(_ url: URL, deadline: ContinuousClock.Instant) async throws(FetchError) -> Hop {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let host = url.host, !host.isEmpty
        else { throw .invalidURL(url.absoluteString) }
        guard url.user == nil, url.password == nil else { throw .invalidURL("an address with a user name or password") }
        let address = try await permittedAddress(for: host)

        var configuration = HTTPClient.Configuration()
        configuration.redirectConfiguration = .disallow
        configuration.timeout = .init(connect: .init(limits.connectTimeout), read: .init(limits.totalTimeout))
        configuration.dnsOverride = [host: address.description]
        configuration.decompression = .disabled
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        let result: Result<Hop, FetchError>
        do {
            result = .success(try await perform(url, with: client, deadline: deadline))
        } catch {
            result = .failure(error)
        }
        try? await client.shutdown()
        return try result.get()
    }

    private func perform(
        _ url: URL, with client: HTTPClient, deadline: ContinuousClock.Instant
    ) async throws(FetchError) -> Hop {
        var request = HTTPClientRequest(url: url.absoluteString)
        request.headers.add(name: "Accept", value: "image/png, image/jpeg, image/gif, image/webp")
        request.headers.add(name: "User-Agent", value: "EmojiArt/1 (background image fetcher)")
        let remaining = deadline - ContinuousClock.now
        guard remaining > .zero else { throw .timedOut }
        do {
            let response = try await client.execute(request, timeout: .init(remaining))
            if (300..<400).contains(response.status.code) {
                guard let location = response.headers.first(name: "Location"),
                    let next = URL(string: location, relativeTo: url)?.absoluteURL
                else { throw FetchError.badStatus(Int(response.status.code)) }
                return .redirect(next)
            }
            guard (200..<300).contains(response.status.code) else {
                throw FetchError.badStatus(Int(response.status.code))
            }
            if let length = response.headers.first(name: "Content-Length").flatMap(Int.init),
                length > limits.maximumBytes
            {
                throw FetchError.tooLarge(limits.maximumBytes)
            }
            var bytes = Data()
            for try await chunk in response.body {
                guard bytes.count + chunk.readableBytes <= limits.maximumBytes else {
                    throw FetchError.tooLarge(limits.maximumBytes)
                }
                bytes.append(contentsOf: chunk.readableBytesView)
            }
            // Read to the end: a truncated or corrupted file is a failure, not a broken picture.
            guard let info = try? ImageInfo(bytes) else { throw FetchError.notAnImage }
            return .image(
                FetchedImage(url: url, data: bytes, mimeType: info.mimeType, width: info.width, height: info.height))
        } catch let error as FetchError {
            throw error
        } catch {
            // However the client reports it (deadline, read or connect timeout, a cancelled
            // connection), a failure once the time is up is a timeout.
            let timeouts: [HTTPClientError] = [
                .deadlineExceeded, .connectTimeout, .readTimeout, .getConnectionFromPoolTimeout,
            ]
            if ContinuousClock.now >= deadline || (error as? HTTPClientError).map(timeouts.contains) == true {
                throw .timedOut
            }
            throw .network(ConnectionFailure.reason(error))
        }
    }

    /// The first address of `host` the policy permits; refused if it permits none.
    private func permittedAddress(for host: String) async throws(FetchError) -> IPAddress {
        if policy.refusesWithoutLookup(host: host) {
            throw .refused("\(host) is not on the list of allowed hosts (public addresses are turned off).")
        }
        let addresses: [IPAddress]
        if let literal = IPAddress(host) {
            addresses = [literal]
        } else {
            do {
                addresses = try await resolve(host)
            } catch {
                throw .network("\(host) could not be resolved")
            }
        }
        guard !addresses.isEmpty else { throw .network("\(host) has no addresses") }
        var reasons: [String] = []
        for address in addresses {
            if let reason = policy.refusal(host: host, address: address) {
                reasons.append(reason)
            } else {
                return address
            }
        }
        throw .refused(reasons[0])
    }
}

/// A fetched image: where it finally came from, its bytes and their type.
public struct FetchedImage: Sendable, Equatable {
    public var url: URL
    public var data: Data
    public var mimeType: String
    /// Pixel size.
    public var width: Int
    public var height: Int
}

/// Why a fetch failed, as the "Set Background" alert says it.
public enum FetchError: Error, Equatable, CustomStringConvertible {
    case invalidURL(String)
    case refused(String)
    case badStatus(Int)
    case tooLarge(Int)
    case tooManyRedirects(Int)
    case timedOut
    case notAnImage
    case network(String)

    public var description: String {
        switch self {
        case .invalidURL(let what): "\(what) is not an http(s) image address."
        case .refused(let reason): "The server won't fetch from there: \(reason)"
        case .badStatus(let status): "The image server answered HTTP \(status)."
        case .tooLarge(let limit): "The image is larger than \(limit / (1024 * 1024)) MB."
        case .tooManyRedirects(let limit): "The address redirected more than \(limit) times."
        case .timedOut: "The image server took too long to answer."
        case .notAnImage: "That is not a complete PNG, JPEG, GIF or WebP image."
        case .network(let detail): "The image could not be downloaded: \(detail.asClause)."
        }
    }
}

/// Host names to addresses through the system resolver (getaddrinfo), off the async threads.
public enum SystemResolver {
    public static func addresses(of host: String) async throws -> [IPAddress] {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                var hints = addrinfo()
                hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
                var list: UnsafeMutablePointer<addrinfo>?
                guard getaddrinfo(host, nil, &hints, &list) == 0, let first = list else {
                    continuation.resume(throwing: FetchError.network("\(host) could not be resolved"))
                    return
                }
                defer { freeaddrinfo(first) }
                var addresses: [IPAddress] = []
                var node: UnsafeMutablePointer<addrinfo>? = first
                while let current = node {
                    var buffer = [CChar](repeating: 0, count: Int(NI_MAXHOST))
                    if getnameinfo(
                        current.pointee.ai_addr, current.pointee.ai_addrlen, &buffer, socklen_t(buffer.count), nil, 0,
                        NI_NUMERICHOST) == 0,
                        let address = IPAddress(
                            String(decoding: buffer.prefix { $0 != 0 }.map(UInt8.init(bitPattern:)), as: UTF8.self))
                    {
                        addresses.append(address)
                    }
                    node = current.pointee.ai_next
                }
                continuation.resume(returning: addresses)
            }
        }
    }
}
