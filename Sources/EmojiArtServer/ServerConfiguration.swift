import EmojiArtFetch
import EmojiArtGame
import EmojiArtJokes
import EmojiArtLive
import EmojiArtStore
import EmojiArtStoreSQLite
import EmojiArtTracing
import Foundation
import Logging
import ServiceLifecycle

/// How `emojiart serve` runs: where it listens and where it keeps documents.
///
/// `init()` gives the built-in defaults and reads nothing; ``init(environment:)`` is the one
/// place the `EMOJIART_*` variables are read (docs/DEPLOY.md lists them), and `emojiart serve`
/// applies its options over that.
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
    public var publicURL: URL?
    /// The folder holding `emojiart.sqlite`; nil keeps everything in memory (lost on exit).
    /// From the environment: `$EMOJIART_DATA`, else `$XDG_DATA_HOME/emojiart`, else
    /// `~/.local/share/emojiart` (``defaultDataDirectory(environment:)``).
    public var dataDirectory: String?
    /// `--durability`, `$EMOJIART_DURABILITY`.
    public var durability: SQLiteDatabase.Durability = .full
    /// A PostgreSQL database (`postgres://user:password@host:port/database`) instead of the
    /// SQLite file: several servers can then share it (`--database`, `$EMOJIART_DATABASE_URL`).
    public var databaseURL: String?
    /// What opens ``databaseURL``: the running program's (``DatabaseDriver/installed``), nil in
    /// `emojiart-sqlite`, which then refuses a database URL.
    public var databaseDriver: DatabaseDriver? = DatabaseDriver.installed
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
    public var fetchPolicy = AddressPolicy(allowing: "")
    /// Fetch limits: 5 redirects, 5 s to connect, 20 s in all, 20 MB.
    public var fetchLimits = ImageFetcher.Limits()
    /// The Jokes app's source: a JSON API answering `{"value": "<joke>"}` (`$EMOJIART_JOKES_URL`).
    public var jokesEndpoint: URL = JokeClient.defaultEndpoint

    /// Where Find or Lose's pictures come from: an Unsplash-compatible API when a key is set
    /// (`$EMOJIART_UNSPLASH_KEY`, `$EMOJIART_UNSPLASH_URL`), a folder (`--game-images`,
    /// `$EMOJIART_GAME_IMAGES`), else the palettes' emojis, which need nothing.
    public var gamePictures: GamePictures = .emoji
    /// How the log is written: lines for people, or JSON objects for collectors
    /// (`$EMOJIART_LOG_FORMAT`, `--log-format`).
    public var logFormat: LogFormat = .text
    /// The least severe log lines written (`$EMOJIART_LOG_LEVEL`, `--log-level`): `info` writes
    /// one access line per request; `notice` or above leaves them out.
    public var logLevel: Logger.Level = .info
    /// Whether requests are counted in `/metrics`, logged and traced (on; off only to measure
    /// what that costs: `--request-telemetry off`, scripts/benchmark-http).
    public var requestTelemetryEnabled = true
    /// Where traces go over OTLP/HTTP and how (`$OTEL_EXPORTER_OTLP_ENDPOINT` and the other
    /// `OTEL_*` variables, ``OTLPSettings``); nil: no tracing.
    public var tracing: OTLPSettings?
    /// Proxies whose `X-Forwarded-For` is believed, besides loopback (`$EMOJIART_TRUSTED_PROXIES`,
    /// comma-separated address ranges).
    public var trustedProxies: [AddressRange] = []
    /// Live messages per second shared by one client address's connections and by one
    /// document's (``AccessSettings/liveMessagesPerAddress``; `$EMOJIART_LIVE_MESSAGES_PER_ADDRESS`,
    /// `$EMOJIART_LIVE_MESSAGES_PER_DOCUMENT`: the rate per second, with a burst of twice that).
    public var liveMessagesPerAddress = AccessSettings().liveMessagesPerAddress
    public var liveMessagesPerDocument = AccessSettings().liveMessagesPerDocument

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

    /// The built-in defaults; reads nothing.
    public init() {}

    /// The defaults with whatever the environment sets: `EMOJIART_HOST`, `EMOJIART_PORT`,
    /// `EMOJIART_ACCESS`, `EMOJIART_SIGNUP`, `EMOJIART_PUBLIC_URL`, `EMOJIART_DATA` (and
    /// `XDG_DATA_HOME`, `HOME`), `EMOJIART_DURABILITY`, `EMOJIART_DATABASE_URL`,
    /// `EMOJIART_HISTORY_DAYS`, `EMOJIART_FETCH_ALLOW`, `EMOJIART_FETCH_PUBLIC`, `EMOJIART_TRUSTED_PROXIES`,
    /// `EMOJIART_JOKES_URL`, `EMOJIART_UNSPLASH_KEY`, `EMOJIART_UNSPLASH_URL`,
    /// `EMOJIART_GAME_IMAGES`, `EMOJIART_LOG_FORMAT`, `EMOJIART_LIVE_MESSAGES_PER_ADDRESS`,
    /// `EMOJIART_LIVE_MESSAGES_PER_DOCUMENT` and the `OTEL_*` variables of ``OTLPSettings``. Empty values count as unset; a value that can't be used is
    /// refused, naming the variable.
    public init(environment: [String: String]) throws {
        func value(_ name: String) -> String? { environment[name].flatMap { $0.isEmpty ? nil : $0 } }
        if let host = value("EMOJIART_HOST") { self.host = host }
        // Kubernetes sets EMOJIART_PORT=tcp://10.0.0.7:8080 for a Service named "emojiart": not ours.
        if let text = value("EMOJIART_PORT"), !text.contains("://") {
            guard let port = Int(text), (0...65535).contains(port) else {
                throw ConfigurationError("$EMOJIART_PORT must be 0...65535, not \"\(text.prefix(40))\".")
            }
            self.port = port
        }
        if let text = value("EMOJIART_ACCESS") {
            guard let access = AccessSettings.Mode(rawValue: text) else {
                throw ConfigurationError("$EMOJIART_ACCESS must be local or accounts, not \"\(text.prefix(40))\".")
            }
            self.access = access
        }
        if let text = value("EMOJIART_SIGNUP") {
            guard text == "open" || text == "closed" else {
                throw ConfigurationError("$EMOJIART_SIGNUP must be open or closed, not \"\(text.prefix(40))\".")
            }
            openSignup = text == "open"
        }
        if let text = value("EMOJIART_PUBLIC_URL") {
            guard let url = URL(string: text) else {
                throw ConfigurationError("$EMOJIART_PUBLIC_URL is not a URL.")
            }
            publicURL = url
        }
        dataDirectory = Self.defaultDataDirectory(environment: environment)
        if let text = value("EMOJIART_DURABILITY") {
            guard let durability = SQLiteDatabase.Durability(rawValue: text) else {
                throw ConfigurationError("$EMOJIART_DURABILITY must be full or normal, not \"\(text.prefix(40))\".")
            }
            self.durability = durability
        }
        databaseURL = value("EMOJIART_DATABASE_URL")
        if let text = value("EMOJIART_HISTORY_DAYS") {
            guard let days = Int(text), (1...36_500).contains(days) else {
                throw ConfigurationError("$EMOJIART_HISTORY_DAYS must be 1...36500 days, not \"\(text.prefix(40))\".")
            }
            library.historyDays = days
        }
        fetchPolicy = AddressPolicy(allowing: value("EMOJIART_FETCH_ALLOW") ?? "")
        fetchPolicy.allowsPublicAddresses = environment["EMOJIART_FETCH_PUBLIC"] != "0"
        trustedProxies = (value("EMOJIART_TRUSTED_PROXIES") ?? "").split(separator: ",")
            .compactMap { AddressRange($0.trimmingCharacters(in: .whitespaces)) }
        if let text = value("EMOJIART_JOKES_URL") {
            guard let url = URL(string: text) else { throw ConfigurationError("$EMOJIART_JOKES_URL is not a URL.") }
            jokesEndpoint = url
        }
        gamePictures = .fromEnvironment(environment)
        if let text = value("EMOJIART_LOG_FORMAT") {
            guard let format = LogFormat(rawValue: text) else {
                throw ConfigurationError("$EMOJIART_LOG_FORMAT must be text or json, not \"\(text.prefix(40))\".")
            }
            logFormat = format
        }
        if let text = value("EMOJIART_LOG_LEVEL") {
            guard let level = Logger.Level(rawValue: text) else {
                throw ConfigurationError(
                    "$EMOJIART_LOG_LEVEL must be one of \(Logger.Level.allCases.map(\.rawValue).joined(separator: ", ")), not \"\(text.prefix(40))\"."
                )
            }
            logLevel = level
        }
        for (name, keyPath) in [
            ("EMOJIART_LIVE_MESSAGES_PER_ADDRESS", \ServerConfiguration.liveMessagesPerAddress),
            ("EMOJIART_LIVE_MESSAGES_PER_DOCUMENT", \ServerConfiguration.liveMessagesPerDocument),
        ] {
            guard let text = value(name) else { continue }
            guard let rate = Int(text), (1...100_000_000).contains(rate) else {
                throw ConfigurationError(
                    "$\(name) must be 1...100000000 messages a second, not \"\(text.prefix(40))\".")
            }
            self[keyPath: keyPath] = RateLimit(perSecond: Double(rate), burst: Double(rate) * 2)
        }
        do {
            tracing = try OTLPSettings(environment: environment)
        } catch {
            throw ConfigurationError(error.description)
        }
    }

    /// The configuration of this process's environment, reading only the variables named (a
    /// command reads what it uses, so a variable meant for `serve` never stops another
    /// command), or all of them.
    public static func fromProcessEnvironment(only names: Set<String>? = nil) throws -> ServerConfiguration {
        var environment = ProcessInfo.processInfo.environment
        if let names { environment = environment.filter { names.contains($0.key) } }
        return try ServerConfiguration(environment: environment)
    }

    /// The variables that say where the stores are (``dataDirectory``, ``databaseURL``).
    public static let storeVariables: Set<String> = ["EMOJIART_DATA", "XDG_DATA_HOME", "HOME", "EMOJIART_DATABASE_URL"]

    /// The rules of access these settings make: the mode, sign-up, and `Secure` cookies when
    /// people reach the server over https.
    public var accessSettings: AccessSettings {
        var settings = AccessSettings()
        settings.mode = access
        settings.openSignup = openSignup
        settings.secureCookies = publicURL?.scheme?.lowercased() == "https"
        settings.passwordCost = passwordCost
        settings.trustedProxies += trustedProxies
        settings.liveMessagesPerAddress = liveMessagesPerAddress
        settings.liveMessagesPerDocument = liveMessagesPerDocument
        return settings
    }

    /// Which requests come from places this server answers: its own names and origin.
    public var siteGuard: SiteGuard { SiteGuard(publicURL: publicURL) }

    /// What each request leaves behind, from these settings.
    public var requestTelemetry: RequestTelemetry {
        requestTelemetryEnabled ? RequestTelemetry(tracing: tracing != nil) : .off
    }

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
    public static func defaultDataDirectory(environment: [String: String]) -> String {
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

    /// The configured stores as the server runs them: on a database server, what its driver
    /// prepares (for PostgreSQL, a pool of connections that is a service of the server's and
    /// migrations that run before it starts listening); for SQLite (migrated as it opens) and
    /// memory, nothing more.
    public func prepareStores(logger: Logger) throws -> PreparedStores {
        guard let databaseURL else { return PreparedStores(stores: try makeStores()) }
        return try requireDatabaseDriver().prepare(databaseURL, logger)
    }

    /// Opens the configured stores: the database server's (connected and migrated) if
    /// ``databaseURL`` is set, else as ``makeStores()``.
    public func openStores(logger: Logger) async throws -> Stores {
        guard let databaseURL else { return try makeStores() }
        return try await requireDatabaseDriver().open(databaseURL, logger)
    }

    /// Where documents are kept, for the startup message (never with a password).
    public var storeDescription: String {
        if let databaseURL {
            return databaseDriver?.describe(databaseURL) ?? "a database server"
        }
        return databasePath ?? "memory (nothing is saved)"
    }

    private func requireDatabaseDriver() throws -> DatabaseDriver {
        guard let databaseDriver else {
            throw ConfigurationError(
                "This program keeps documents in SQLite only, so it cannot use --database "
                    + "($EMOJIART_DATABASE_URL). Run the same command with `emojiart` for PostgreSQL (say, "
                    + "`swift run emojiart serve --database …`, or scripts/install), or leave --database out.")
        }
        return databaseDriver
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
