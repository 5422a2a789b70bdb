import EmojiArtFetch
import EmojiArtGame
import EmojiArtJokes
import EmojiArtLive
import EmojiArtStore
import Foundation
import Logging

/// How `emojiart serve` runs: where it listens and where it keeps documents.
public struct ServerConfiguration: Sendable {
    public var host = "127.0.0.1"
    public var port = 8080
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
        store: any DocumentStore, fetcher: ImageFetcher, palettes: PaletteLibrary
    ) throws -> any GameImageSource {
        switch gamePictures {
        case .emoji:
            return EmojiTileSource {
                (try? await palettes.palettes())?.flatMap { $0.emojis.map(String.init) } ?? []
            }
        case .folder(let path):
            do {
                return try FolderImageSource(
                    directory: URL(fileURLWithPath: path), images: GameImageStore(store: store))
            } catch {
                throw ConfigurationError("--game-images: \(error.description)")
            }
        case .unsplash(let configuration):
            return UnsplashImageSource(
                configuration: configuration, fetcher: fetcher, images: GameImageStore(store: store))
        }
    }

    /// Opens the configured store: PostgreSQL (connected and migrated) if ``databaseURL`` is
    /// set, else as ``makeStore()``.
    public func openStore(logger: Logger) async throws -> any DocumentStore {
        guard let databaseURL else { return try makeStore() }
        return try await PostgresDocumentStore.open(
            try PostgresDocumentStore.Connection(url: databaseURL), logger: logger)
    }

    /// Where documents are kept, for the startup message (never with a password).
    public var storeDescription: String {
        if let databaseURL {
            return (try? PostgresDocumentStore.Connection(url: databaseURL).description) ?? "PostgreSQL"
        }
        return databasePath ?? "memory (nothing is saved)"
    }

    /// Opens the SQLite or in-memory store, creating the data folder if needed.
    func makeStore() throws -> any DocumentStore {
        if databaseURL != nil {
            throw ConfigurationError(
                "PostgreSQL is opened asynchronously: pass openStore()'s store to buildApplication")
        }
        guard let dataDirectory, let databasePath else { return InMemoryDocumentStore() }
        try FileManager.default.createDirectory(atPath: dataDirectory, withIntermediateDirectories: true)
        return try SQLiteDocumentStore(path: databasePath, durability: durability)
    }
}

/// A setting the server cannot start with, said as the operator should read it.
public struct ConfigurationError: Error, CustomStringConvertible {
    public var description: String

    init(_ description: String) {
        self.description = description
    }
}
