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
                ~/.local/share/emojiart. Each option can also be set with the environment variable \
                named beside it; an option given wins. Stop with Ctrl-C (SIGINT) or SIGTERM: every \
                open document is saved first.
                """)

        @Option(help: "The address to listen on; default 127.0.0.1 ($EMOJIART_HOST).")
        var host: String?

        @Option(
            help: """
                Who may use the server: local (one user on this machine, no sign-in; loopback \
                addresses only; the default) or accounts ($EMOJIART_ACCESS).
                """)
        var access: String?

        @Option(
            help: """
                In accounts mode, whether anyone may make themselves an account on the sign-in page: \
                open or closed ($EMOJIART_SIGNUP). Closed, the default: the admin adds users \
                (emojiart users add).
                """)
        var signup: String?

        @Option(
            help: """
                The address people reach the server by, e.g. https://emojiart.example.com behind a \
                proxy: requests for its host are served and pages from it may make changes; share \
                links are built on it ($EMOJIART_PUBLIC_URL).
                """)
        var publicURL: String?

        @Option(help: "The port to listen on, default 8080; 0 picks a free one ($EMOJIART_PORT).")
        var port: Int?

        @Option(help: "The folder for the database ($EMOJIART_DATA).")
        var data: String?

        @Flag(help: "Keep everything in memory; nothing survives the server.")
        var memory = false

        @Option(
            help: """
                A PostgreSQL database instead of the SQLite file, e.g. \
                postgres://emojiart:secret@db.internal:5432/emojiart ($EMOJIART_DATABASE_URL). \
                Several servers can share one (docs/DEPLOY.md). `emojiart` only: \
                `emojiart-sqlite` has no PostgreSQL driver.
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
                not the machine crashing. Default full ($EMOJIART_DURABILITY).
                """)
        var durability: SQLiteDatabase.Durability?

        @Option(
            help: """
                Thin history older than this many days to the last version of each day; without it \
                every version is kept ($EMOJIART_HISTORY_DAYS).
                """)
        var historyDays: Int?

        @Option(
            help: """
                The log's form: text, lines for people (the default), or json, one JSON object per \
                line with a requestId on each request's lines ($EMOJIART_LOG_FORMAT).
                """)
        var logFormat: String?

        @Option(
            help: """
                The least severe log lines written: trace, debug, info (the default: with one line \
                per request), notice, warning, error or critical ($EMOJIART_LOG_LEVEL).
                """)
        var logLevel: String?

        @Option(help: .hidden)
        var requestTelemetry: String?

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
            if let port, !(0...65535).contains(port) { throw ValidationError("--port must be 0...65535.") }
            if let historyDays, !(1...36_500).contains(historyDays) {
                throw ValidationError("--history-days must be 1...36500.")
            }
            guard (1...3600).contains(requestHeadTimeout) else {
                throw ValidationError("--request-head-timeout must be 1...3600 seconds.")
            }
            if let access, AccessSettings.Mode(rawValue: access) == nil {
                throw ValidationError("--access must be local or accounts.")
            }
            if let signup, signup != "open", signup != "closed" {
                throw ValidationError("--signup must be open or closed.")
            }
            if let logFormat, LogFormat(rawValue: logFormat) == nil {
                throw ValidationError("--log-format must be text or json.")
            }
            if let logLevel, Logger.Level(rawValue: logLevel) == nil {
                throw ValidationError(
                    "--log-level must be one of \(Logger.Level.allCases.map(\.rawValue).joined(separator: ", ")).")
            }
            if let requestTelemetry, requestTelemetry != "on", requestTelemetry != "off" {
                throw ValidationError("--request-telemetry must be on or off.")
            }
            // The environment's settings are checked here too, so a bad one is a usage error;
            // one an option overrides is not read at all.
            let environment: ServerConfiguration
            do {
                environment = try environmentConfiguration()
            } catch let error as ConfigurationError {
                throw ValidationError(error.description)
            }
            if memory, data != nil { throw ValidationError("Use --data or --memory, not both.") }
            if database != nil, memory || data != nil {
                throw ValidationError("Use --database on its own: documents are then kept in PostgreSQL.")
            }
            if gameImages != nil, case .unsplash = environment.gamePictures {
                throw ValidationError("Use --game-images or $EMOJIART_UNSPLASH_KEY for the game's pictures, not both.")
            }
        }

        /// The environment's configuration, without the variables the options given override.
        private func environmentConfiguration() throws -> ServerConfiguration {
            var environment = ProcessInfo.processInfo.environment
            let overridden: [(String, Bool)] = [
                ("EMOJIART_HOST", host != nil), ("EMOJIART_PORT", port != nil), ("EMOJIART_ACCESS", access != nil),
                ("EMOJIART_SIGNUP", signup != nil), ("EMOJIART_PUBLIC_URL", publicURL != nil),
                ("EMOJIART_DATA", data != nil || memory || database != nil),
                ("EMOJIART_DURABILITY", durability != nil), ("EMOJIART_DATABASE_URL", database != nil),
                ("EMOJIART_FETCH_ALLOW", fetchAllow != nil), ("EMOJIART_GAME_IMAGES", gameImages != nil),
                ("EMOJIART_HISTORY_DAYS", historyDays != nil), ("EMOJIART_LOG_FORMAT", logFormat != nil),
                ("EMOJIART_LOG_LEVEL", logLevel != nil),
            ]
            for (name, given) in overridden where given { environment[name] = nil }
            return try ServerConfiguration(environment: environment)
        }

        func run() async throws {
            var configuration = try environmentConfiguration()
            if let host { configuration.host = host }
            if let port { configuration.port = port }
            configuration.requestHeadTimeout = .seconds(requestHeadTimeout)
            if let access { configuration.access = AccessSettings.Mode(rawValue: access) ?? .local }
            if let signup { configuration.openSignup = signup == "open" }
            if let publicURL {
                guard let url = URL(string: publicURL) else {
                    throw ConfigurationError("--public-url \(publicURL) is not a URL.")
                }
                configuration.publicURL = url
            }
            if let durability { configuration.durability = durability }
            if let historyDays { configuration.library.historyDays = historyDays }
            if memory { configuration.dataDirectory = nil } else if let data { configuration.dataDirectory = data }
            if let fetchAllow {
                let allowsPublic = configuration.fetchPolicy.allowsPublicAddresses
                configuration.fetchPolicy = AddressPolicy(allowing: fetchAllow)
                configuration.fetchPolicy.allowsPublicAddresses = allowsPublic
            }
            if let gameImages { configuration.gamePictures = .folder(gameImages) }
            if let database { configuration.databaseURL = database }
            if let logFormat { configuration.logFormat = LogFormat(rawValue: logFormat) ?? .text }
            if let logLevel { configuration.logLevel = Logger.Level(rawValue: logLevel) ?? .info }
            if let requestTelemetry { configuration.requestTelemetryEnabled = requestTelemetry == "on" }
            try configuration.validateAccess()
            // Lines go out in batches, not one write(2) each (LogOutput).
            let format = configuration.logFormat
            LoggingSystem.bootstrap { label in ServerLogHandler(label: label, format: format) }
            // Whatever waits is written before the command ends, and before an error it throws
            // is printed.
            defer {
                LogOutput.standardError.flush()
                LogOutput.standardOutput.flush()
            }
            var logger = Logger(label: "emojiart")
            logger.logLevel = configuration.logLevel
            let storeDescription = configuration.storeDescription
            let json = configuration.logFormat == .json
            let announcer = logger
            // Every live window is an open socket.
            OpenFileLimit.raise()
            let tracing = Tracing.bootstrap(configuration, logger: logger)
            let app = try await buildApplication(
                configuration, logger: logger, observability: tracing.map { [$0] } ?? []
            ) { url in
                // In JSON, everything on standard output is a log object.
                if json {
                    announcer.info("listening", metadata: ["url": .string(url), "store": .string(storeDescription)])
                } else {
                    say("EmojiArt is running at \(url)")
                    say("Documents are stored in \(storeDescription). Press Ctrl-C to stop.")
                }
            }
            try await runServer(app, configuration, logger: logger)
        }
    }
}

/// `--durability full|normal`, checked by the argument parser.
extension SQLiteDatabase.Durability: ExpressibleByArgument {}
