import ArgumentParser
import EmojiArtFetch
import EmojiArtServer
import EmojiArtStore
import EmojiArtStoreSQLite
import Foundation
import Hummingbird
import Logging

extension EmojiArtCommand {
    struct Serve: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Run the EmojiArt server: the web editor and its API.",
            discussion: """
                Documents and palettes are kept in an SQLite database, emojiart.sqlite, in the data \
                folder: --data, else $EMOJIART_DATA, else $XDG_DATA_HOME/emojiart, else \
                ~/.local/share/emojiart. Options can also be set with EMOJIART_HOST, EMOJIART_PORT \
                and EMOJIART_DURABILITY. Stop with Ctrl-C (SIGINT) or SIGTERM: every open document \
                is saved first.
                """)

        @Option(help: "The address to listen on ($EMOJIART_HOST).")
        var host: String = ProcessInfo.processInfo.environment["EMOJIART_HOST"] ?? "127.0.0.1"

        @Option(
            help: """
                Who may use the server: local (one user on this machine, no sign-in; loopback \
                addresses only) or accounts ($EMOJIART_ACCESS).
                """)
        var access: String =
            ProcessInfo.processInfo.environment["EMOJIART_ACCESS"].flatMap {
                $0.isEmpty ? nil : $0
            } ?? "local"

        @Option(
            help: """
                In accounts mode, whether anyone may make themselves an account on the sign-in page: \
                open or closed ($EMOJIART_SIGNUP). Closed: the admin adds users (emojiart users add).
                """)
        var signup: String =
            ProcessInfo.processInfo.environment["EMOJIART_SIGNUP"].flatMap { $0.isEmpty ? nil : $0 } ?? "closed"

        @Option(
            help: """
                The address people reach the server by, e.g. https://emojiart.example.com behind a \
                proxy: requests for its host are served and pages from it may make changes; share \
                links are built on it ($EMOJIART_PUBLIC_URL).
                """)
        var publicURL: String?

        @Option(help: "The port to listen on; 0 picks a free one ($EMOJIART_PORT).")
        var port: Int = ProcessInfo.processInfo.environment["EMOJIART_PORT"].flatMap { Int($0) } ?? 8080

        @Option(help: "The folder for the database ($EMOJIART_DATA).")
        var data: String?

        @Flag(help: "Keep everything in memory; nothing survives the server.")
        var memory = false

        @Option(
            help: """
                A PostgreSQL database instead of the SQLite file, e.g. \
                postgres://emojiart:secret@db.internal:5432/emojiart ($EMOJIART_DATABASE_URL). \
                Several servers can share one (docs/DEPLOY.md).
                """)
        var database: String?

        @Option(
            help: """
                Hosts or address ranges background images may also be fetched from, besides public \
                addresses, e.g. 127.0.0.1/32,images.internal ($EMOJIART_FETCH_ALLOW).
                """)
        var fetchAllow: String?

        @Option(
            help: """
                full: fsync every commit (survives power loss); normal: survives the server being killed, \
                not the machine crashing ($EMOJIART_DURABILITY).
                """)
        var durability: SQLiteDocumentStore.Durability = .fromEnvironment

        @Option(
            help: """
                Seconds a connection may go without a complete request head — a new one, or a \
                kept-alive one between requests — before it is closed.
                """)
        var requestHeadTimeout: Int = 10

        @Option(
            help: """
                A folder of PNG, JPEG, GIF or WebP pictures for Find or Lose ($EMOJIART_GAME_IMAGES). \
                Without it the game plays with the palettes' emojis, or with Unsplash when \
                $EMOJIART_UNSPLASH_KEY is set.
                """)
        var gameImages: String?

        func validate() throws {
            guard (0...65535).contains(port) else { throw ValidationError("--port must be 0...65535.") }
            guard (1...3600).contains(requestHeadTimeout) else {
                throw ValidationError("--request-head-timeout must be 1...3600 seconds.")
            }
            guard AccessSettings.Mode(rawValue: access) != nil else {
                throw ValidationError("--access must be local or accounts.")
            }
            guard signup == "open" || signup == "closed" else {
                throw ValidationError("--signup must be open or closed.")
            }
            if let value = ProcessInfo.processInfo.environment["EMOJIART_DURABILITY"], !value.isEmpty,
                SQLiteDocumentStore.Durability(rawValue: value) == nil
            {
                throw ValidationError("$EMOJIART_DURABILITY must be full or normal, not \"\(value)\".")
            }
            if memory, data != nil { throw ValidationError("Use --data or --memory, not both.") }
            if database != nil, memory || data != nil {
                throw ValidationError("Use --database on its own: documents are then kept in PostgreSQL.")
            }
            if gameImages != nil, ProcessInfo.processInfo.environment["EMOJIART_UNSPLASH_KEY"]?.isEmpty == false {
                throw ValidationError("Use --game-images or $EMOJIART_UNSPLASH_KEY for the game's pictures, not both.")
            }
        }

        func run() async throws {
            var configuration = ServerConfiguration()
            configuration.host = host
            configuration.port = port
            configuration.requestHeadTimeout = .seconds(requestHeadTimeout)
            configuration.access = AccessSettings.Mode(rawValue: access) ?? .local
            configuration.openSignup = signup == "open"
            if let publicURL {
                guard let url = URL(string: publicURL) else {
                    throw ConfigurationError("--public-url \(publicURL) is not a URL.")
                }
                configuration.publicURL = url
            }
            configuration.durability = durability
            configuration.dataDirectory = memory ? nil : (data ?? ServerConfiguration.defaultDataDirectory)
            if let fetchAllow {
                let allowsPublic = configuration.fetchPolicy.allowsPublicAddresses
                configuration.fetchPolicy = AddressPolicy(allowing: fetchAllow)
                configuration.fetchPolicy.allowsPublicAddresses = allowsPublic
            }
            if let gameImages { configuration.gamePictures = .folder(gameImages) }
            if let database { configuration.databaseURL = database }
            try configuration.validateAccess()
            var logger = Logger(label: "emojiart")
            logger.logLevel = .info
            let storeDescription = configuration.storeDescription
            let stores = try await configuration.openStores(logger: logger)
            let app = try buildApplication(configuration, stores: stores, logger: logger) { url in
                say("EmojiArt is running at \(url)")
                say("Documents are stored in \(storeDescription). Press Ctrl-C to stop.")
            }
            try await runServer(app, configuration, logger: logger)
        }
    }
}

/// `--durability full|normal`, checked by the argument parser.
extension SQLiteDocumentStore.Durability: ExpressibleByArgument {
    /// $EMOJIART_DURABILITY if it names one, else `full` (a wrong value is refused in `validate()`).
    static var fromEnvironment: Self {
        ProcessInfo.processInfo.environment["EMOJIART_DURABILITY"].flatMap(Self.init(rawValue:)) ?? .full
    }
}
