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
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2")
    ],
    targets: [
        // The pure core: model, edits, undo, file formats, palettes. Foundation at most.
        .target(name: "EmojiArtKit"),
        // The command-line interface, as a library so tests can drive it in process.
        .target(
            name: "EmojiArtCLI",
            dependencies: [
                "EmojiArtKit",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // The thin `emojiart` executable.
        .executableTarget(name: "emojiart", dependencies: ["EmojiArtCLI"]),
        // `emojiart-bench`: the figures quoted in docs/PERFORMANCE.md.
        .executableTarget(name: "EmojiArtBenchmarks", dependencies: ["EmojiArtKit", "CAllocationStats"]),
        // The allocator's byte count, for the benchmark's memory figures.
        .target(name: "CAllocationStats"),
        .testTarget(name: "EmojiArtKitTests", dependencies: ["EmojiArtKit"]),
        .testTarget(
            name: "EmojiArtCLITests",
            dependencies: ["EmojiArtCLI", .product(name: "ArgumentParser", package: "swift-argument-parser")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
