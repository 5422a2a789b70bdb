// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "EmojiArt",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "emojiart", targets: ["emojiart"]),
        .executable(name: "emojiart-bench", targets: ["EmojiArtBenchmarks"]),
        .library(name: "EmojiArtKit", targets: ["EmojiArtKit"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.8.1"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth", from: "2.5.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        // Traces over OTLP/HTTP only: the gRPC exporter (and its build) is left out.
        .package(url: "https://github.com/swift-otel/swift-otel", from: "1.6.0", traits: ["OTLPHTTP"]),
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1"),
    ],
    targets: [
        // The pure core: model, edits, undo, file formats, palettes. Foundation at most.
        .target(name: "EmojiArtKit"),
        // Image files checked pixel by pixel with Debian's libpng, libjpeg-turbo, libwebp and giflib
        // (their -dev packages: scripts/install-system-packages).
        .target(
            name: "CImageCodecs",
            linkerSettings: [
                .linkedLibrary("png16"), .linkedLibrary("jpeg"), .linkedLibrary("webp"),
                .linkedLibrary("webpdemux"), .linkedLibrary("gif"),
            ]
        ),
        .target(name: "EmojiArtImaging", dependencies: ["EmojiArtKit", "CImageCodecs"]),
        // The Jokes companion app's client: a JSON joke API, one shared fetch at a time.
        .target(
            name: "EmojiArtJokes",
            dependencies: ["EmojiArtFetch", .product(name: "AsyncHTTPClient", package: "async-http-client")]),
        // The Find or Lose companion game: its rules, the session that plays them against a clock,
        // and its picture sources (an Unsplash-compatible API, a folder, the palettes' emojis).
        .target(
            name: "EmojiArtGame",
            dependencies: [
                "EmojiArtFetch", "EmojiArtKit", "EmojiArtStore",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
        // Pictures of documents: SVG (pure Swift) and PNG drawn with pango + cairo from Debian.
        .systemLibrary(
            name: "CPangoCairo", pkgConfig: "pangocairo",
            providers: [.apt(["libpango1.0-dev", "libcairo2-dev"])]),
        .target(name: "CEmojiRender", dependencies: ["CPangoCairo"]),
        .target(name: "EmojiArtRender", dependencies: ["EmojiArtKit", "EmojiArtImaging", "CEmojiRender"]),
        // Persistence, without database drivers: one store protocol per aggregate (documents and
        // their log, palettes, images, users, sessions, tokens, members, links), the SQL that is the
        // same on SQLite and PostgreSQL written once against a small SQLDatabase protocol and its
        // SQLDialect, and an in-memory store for tests.
        .target(
            name: "EmojiArtStore",
            dependencies: [
                "EmojiArtKit", "EmojiArtImaging", .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"), .product(name: "Metrics", package: "swift-metrics"),
            ]
        ),
        // The SQLite driver (GRDB): the default store.
        .target(
            name: "EmojiArtStoreSQLite",
            dependencies: ["EmojiArtKit", "EmojiArtStore", .product(name: "GRDB", package: "GRDB.swift")]
        ),
        // The PostgreSQL driver (postgres-nio): several servers on one database.
        .target(
            name: "EmojiArtStorePostgres",
            dependencies: [
                "EmojiArtKit", "EmojiArtStore", .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Fetching from the network: the address policy that keeps fetches off private networks.
        .target(
            name: "EmojiArtFetch",
            dependencies: [
                "EmojiArtKit",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
        // Live documents: one actor per open document, the library that loads and unloads them.
        .target(
            name: "EmojiArtLive",
            dependencies: [
                "EmojiArtKit", "EmojiArtStore", .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
            ]
        ),
        // The live wire protocol: every message a live window sends or receives (documents,
        // palettes, Find or Lose), the close codes, and the order a connection writes in.
        .target(name: "EmojiArtWire", dependencies: ["EmojiArtKit", "EmojiArtStore", "EmojiArtLive", "EmojiArtGame"]),
        // HTTP: the REST API and the web editor's files, as a Hummingbird application.
        .target(
            name: "EmojiArtServer",
            dependencies: [
                "EmojiArtKit", "EmojiArtStore", "EmojiArtStoreSQLite", "EmojiArtStorePostgres", "EmojiArtLive",
                "EmojiArtWire", "EmojiArtFetch", "EmojiArtImaging", "EmojiArtRender",
                "EmojiArtJokes", "EmojiArtGame",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "HummingbirdBcrypt", package: "hummingbird-auth"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "OTel", package: "swift-otel"),
            ],
            resources: [.copy("Public")]
        ),
        // The command-line interface, as a library so tests can drive it in process.
        .target(
            name: "EmojiArtCLI",
            dependencies: [
                "EmojiArtKit", "EmojiArtStore", "EmojiArtStoreSQLite", "EmojiArtLive", "EmojiArtServer",
                "EmojiArtFetch", "EmojiArtImaging",
                "EmojiArtRender", "EmojiArtJokes", "EmojiArtGame",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // The thin `emojiart` executable.
        .executableTarget(name: "emojiart", dependencies: ["EmojiArtCLI"]),
        // `emojiart-bench`: the figures quoted in docs/PERFORMANCE.md.
        .executableTarget(
            name: "EmojiArtBenchmarks",
            dependencies: [
                "EmojiArtKit", "EmojiArtStore", "EmojiArtStoreSQLite", "EmojiArtStorePostgres", "EmojiArtLive",
                "EmojiArtServer", "EmojiArtRender", "EmojiArtWire", "CAllocationStats",
                "EmojiArtTestSupport",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
            ]
        ),
        // The allocator's byte count, for the benchmark's memory figures.
        .target(name: "CAllocationStats"),
        // Shared by the tests: random edits for randomized and fuzz tests, PostgreSQL test databases.
        .target(
            name: "EmojiArtTestSupport",
            dependencies: [
                "EmojiArtKit", "EmojiArtStore", "EmojiArtStorePostgres",
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ]),
        .testTarget(
            name: "EmojiArtKitTests",
            dependencies: [
                "EmojiArtKit", "EmojiArtTestSupport", .product(name: "PropertyBased", package: "swift-property-based"),
            ]),
        .testTarget(
            name: "EmojiArtImagingTests",
            dependencies: ["EmojiArtImaging", .product(name: "PropertyBased", package: "swift-property-based")]),
        .testTarget(
            name: "EmojiArtStoreTests",
            dependencies: [
                "EmojiArtStore", "EmojiArtStoreSQLite", "EmojiArtStorePostgres", "EmojiArtTestSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"), .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "EmojiArtLiveTests",
            dependencies: [
                "EmojiArtLive", "EmojiArtStorePostgres", "EmojiArtStoreSQLite", "EmojiArtTestSupport", "EmojiArtWire",
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            // The page that replays the live fuzz test in Chromium (ChromiumReplay.swift).
            exclude: ["Replay"]),
        .testTarget(name: "EmojiArtWireTests", dependencies: ["EmojiArtWire", "EmojiArtLive", "EmojiArtKit"]),
        .testTarget(
            name: "EmojiArtFetchTests",
            dependencies: [
                "EmojiArtFetch",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .testTarget(
            name: "EmojiArtServerTests",
            dependencies: [
                "EmojiArtServer", "EmojiArtLive", "EmojiArtStore", "EmojiArtTestSupport", "EmojiArtImaging",
                "EmojiArtKit", "EmojiArtJokes", "EmojiArtWire", "EmojiArtStorePostgres", "EmojiArtGame",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "EmojiArtJokesTests",
            dependencies: [
                "EmojiArtJokes",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
            ]),
        .testTarget(
            name: "EmojiArtGameTests",
            dependencies: [
                "EmojiArtGame", "EmojiArtStore", "EmojiArtFetch",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
            ]),
        .testTarget(
            name: "EmojiArtRenderTests", dependencies: ["EmojiArtRender", "EmojiArtImaging", "EmojiArtKit"]),
        .testTarget(
            name: "EmojiArtCLITests",
            dependencies: ["EmojiArtCLI", .product(name: "ArgumentParser", package: "swift-argument-parser")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
