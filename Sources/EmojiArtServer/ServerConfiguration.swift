import EmojiArtFetch
import EmojiArtGame
import EmojiArtJokes
import EmojiArtLive
import EmojiArtStore
import EmojiArtStorePostgres
import EmojiArtStoreSQLite
import Foundation
import Logging

/// How `emojiart serve` runs: where it listens and where it keeps documents.
public struct ServerConfiguration: Sendable {
    public var host = "127.0.0.1"
    public var port = 8080
    /// Who may use the server (`--access`, `$EMOJIART_ACCESS`).
    public var access: AccessSettings.Mode = .local
    /// Whether anyone may make an account in accounts mode (`--signup open`, `$EMOJIART_SIGNUP`).
    public var openSignup = false
    /// bcrypt's cost for new passwords; 12 unless a test wants speed.
    public var passwordCost: UInt8 = 12
    /// The address people reach the server by (`--public-url`, `$EMOJIART_PUBLIC_URL`), e.g.
    /// `https://emojiart.example.com` behind a proxy: its host is one of the server's own names
    /// and pages served from it may change things.
    public var publicURL: URL? = ProcessInfo.processInfo.environment["EMOJIART_PUBLIC_URL"].flatMap {
        $0.isEmpty ? nil : URL(string: $0)
    }
    /// The folder holding `emojiart.sqlite`; nil keeps everything in memory (lost on exit).
    public var dataDirectory: String? = ServerConfiguration.defaultDataDirectory
    public var durability: SQLiteDocumentStore.Durability = .full
    /// A PostgreSQL database (`postgres://user:password@host:port/database`) instead of the
    /// SQLite file: several servers can then share it (`--database`, `$EMOJIART_DATABASE_URL`).
    public var databaseURL: String? = ProcessInfo.processInfo.environment["EMOJIART_DATABASE_URL"].flatMap {
        $0.isEmpty ? nil : $0
    }
    /// How often idle documents are compacted and unloaded.
    public var maintenanceInterval: Duration = .seconds(1)
    /// How long a connection may go without a complete request head — a new connection, or a
    /// kept-alive one between requests — before it is closed.
    public var requestHeadTimeout: Duration = .seconds(10)
    /// How long a live window may take to answer the server's close before its socket is dropped.
    public var liveCloseTimeout: Duration = .seconds(3)
    /// On SIGTERM or SIGINT, how long requests and live connections get to finish; whatever is
    /// left is then cancelled (acknowledged changes are in the store's log either way).
    public var shutdownGracePeriod: Duration = .seconds(10)
    public var library = DocumentLibrary.Settings()
    /// Where background images may be fetched from: public addresses only, plus these
    /// exceptions (`--fetch-allow`, `$EMOJIART_FETCH_ALLOW`, e.g. `127.0.0.1/32,images.internal`).
    /// `EMOJIART_FETCH_PUBLIC=0` refuses everything not allowed (the tests run that way).
    public var fetchPolicy: AddressPolicy = {
        let environment = ProcessInfo.processInfo.environment
        var policy = AddressPolicy(allowing: environment["EMOJIART_FETCH_ALLOW"] ?? "")
        policy.allowsPublicAddresses = environment["EMOJIART_FETCH_PUBLIC"] != "0"
        return policy
    }()
    /// Fetch limits: 5 redirects, 5 s to connect, 20 s in all, 20 MB.
    public var fetchLimits = ImageFetcher.Limits()
    /// The Jokes app's source: a JSON API answering `{"value": "<joke>"}` (`$EMOJIART_JOKES_URL`).
    public var jokesEndpoint: URL = {
        ProcessInfo.processInfo.environment["EMOJIART_JOKES_URL"].flatMap { URL(string: $0) }
            ?? JokeClient.defaultEndpoint
    }()

    /// Where Find or Lose's pictures come from: an Unsplash-compatible API when a key is set
    /// (`$EMOJIART_UNSPLASH_KEY`, `$EMOJIART_UNSPLASH_URL`), a folder (`--game-images`,
    /// `$EMOJIART_GAME_IMAGES`), else the palettes' emojis, which need nothing.
    public var gamePictures: GamePictures = .fromEnvironment(ProcessInfo.processInfo.environment)

    public enum GamePictures: Sendable {
        case emoji
        case folder(String)
        case unsplash(UnsplashImageSource.Configuration)

        public static func fromEnvironment(_ environment: [String: String]) -> GamePictures {
            if let key = environment["EMOJIART_UNSPLASH_KEY"], !key.isEmpty {
                let base =
                    environment["EMOJIART_UNSPLASH_URL"].flatMap { URL(string: $0) }
                    ?? UnsplashImageSource.Configuration.defaultBaseURL
                return .unsplash(.init(baseURL: base, accessKey: key))
            }
            if let folder = environment["EMOJIART_GAME_IMAGES"], !folder.isEmpty { return .folder(folder) }
            return .emoji
        }
    }

    public init() {}

    /// The rules of access these settings make: the mode, sign-up, and `Secure` cookies when
    /// people reach the server over https.
    public var accessSettings: AccessSettings {
        var settings = AccessSettings()
        settings.mode = access
        settings.openSignup = openSignup
        settings.secureCookies = publicURL?.scheme?.lowercased() == "https"
        settings.passwordCost = passwordCost
        settings.trustedProxies += (ProcessInfo.processInfo.environment["EMOJIART_TRUSTED_PROXIES"] ?? "")
            .split(separator: ",").compactMap { AddressRange($0.trimmingCharacters(in: .whitespaces)) }
        return settings
    }

    /// Which requests come from places this server answers: its own names and origin.
    public var siteGuard: SiteGuard { SiteGuard(publicURL: publicURL) }

    /// Refuses settings that would open the server to others unguarded: in local mode it listens
    /// on loopback only.
    public func validateAccess() throws {
        if let publicURL, SiteGuard.authority(of: publicURL) == nil {
            throw ConfigurationError(
                "--public-url must be an http or https address with a host, like https://emojiart.example.com.")
        }
        switch access {
        case .local:
            guard Self.isLoopback(host) else {
                throw ConfigurationError(
                    "Listening on \(host) would let other machines in without signing in: add --access accounts "
                        + "(or EMOJIART_ACCESS=accounts), or listen on 127.0.0.1.")
            }
        case .accounts:
            break
        }
    }

    /// Whether an address to listen on is this machine's loopback: `localhost`, 127.0.0.0/8, `::1`.
    public static func isLoopback(_ host: String) -> Bool {
        var host = host.lowercased()
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        if host == "localhost" { return true }
        var v4 = in_addr()
        if inet_pton(AF_INET, host, &v4) == 1 { return UInt32(bigEndian: v4.s_addr) >> 24 == 127 }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, host, &v6) == 1 else { return false }
        let bytes = withUnsafeBytes(of: v6) { Array($0) }
        return bytes[0..<15].allSatisfy { $0 == 0 } && bytes[15] == 1
    }

    /// `$EMOJIART_DATA`, else `$XDG_DATA_HOME/emojiart`, else `~/.local/share/emojiart`.
    public static var defaultDataDirectory: String {
        let environment = ProcessInfo.processInfo.environment
        if let data = environment["EMOJIART_DATA"], !data.isEmpty { return data }
        if let xdg = environment["XDG_DATA_HOME"], !xdg.isEmpty { return xdg + "/emojiart" }
        // $HOME first: Foundation's home directory on Linux comes from the password database.
        let home =
            environment["HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? FileManager.default.homeDirectoryForCurrentUser.path
        return URL(fileURLWithPath: home).appendingPathComponent(".local/share/emojiart").path
    }

    /// The database file inside ``dataDirectory``.
    public var databasePath: String? {
        dataDirectory.map { URL(fileURLWithPath: $0).appendingPathComponent("emojiart.sqlite").path }
    }

    /// The game's picture source; a folder that cannot be used stops the server from starting.
    func makeGameSource(
        images: any ImageStore, fetcher: ImageFetcher, palettes: PaletteLibrary
    ) throws -> any GameImageSource {
        switch gamePictures {
        case .emoji:
            return EmojiTileSource {
                (try? await palettes.palettes())?.flatMap { $0.emojis.map(String.init) } ?? []
            }
        case .folder(let path):
            do {
                return try FolderImageSource(
                    directory: URL(fileURLWithPath: path), images: GameImageStore(store: images))
            } catch {
                throw ConfigurationError("--game-images: \(error.description)")
            }
        case .unsplash(let configuration):
            return UnsplashImageSource(
                configuration: configuration, fetcher: fetcher, images: GameImageStore(store: images))
        }
    }

    /// Opens the configured stores: PostgreSQL (connected and migrated) if ``databaseURL`` is
    /// set, else as ``makeStores()``.
    public func openStores(logger: Logger) async throws -> Stores {
        guard let databaseURL else { return try makeStores() }
        return try await .postgres(try PostgresDocumentStore.Connection(url: databaseURL), logger: logger)
    }

    /// Where documents are kept, for the startup message (never with a password).
    public var storeDescription: String {
        if let databaseURL {
            return (try? PostgresDocumentStore.Connection(url: databaseURL).description) ?? "PostgreSQL"
        }
        return databasePath ?? "memory (nothing is saved)"
    }

    /// Opens the SQLite or in-memory stores, creating the data folder if needed.
    public func makeStores() throws -> Stores {
        if databaseURL != nil {
            throw ConfigurationError(
                "PostgreSQL is opened asynchronously: pass openStores()' stores to buildApplication")
        }
        guard let dataDirectory, let databasePath else { return .inMemory() }
        try FileManager.default.createDirectory(atPath: dataDirectory, withIntermediateDirectories: true)
        return try .sqlite(path: databasePath, durability: durability)
    }
}

/// A setting the server cannot start with, said as the operator should read it.
public struct ConfigurationError: Error, CustomStringConvertible {
    public var description: String

    public init(_ description: String) {
        self.description = description
    }
}
