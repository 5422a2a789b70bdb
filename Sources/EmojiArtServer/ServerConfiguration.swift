import EmojiArtFetch
import EmojiArtLive
import EmojiArtStore
import Foundation

/// How `emojiart serve` runs: where it listens and where it keeps documents.
public struct ServerConfiguration: Sendable {
    public var host = "127.0.0.1"
    public var port = 8080
    /// The folder holding `emojiart.sqlite`; nil keeps everything in memory (lost on exit).
    public var dataDirectory: String? = ServerConfiguration.defaultDataDirectory
    public var durability: SQLiteDocumentStore.Durability = .full
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

    /// Opens the configured store, creating the data folder if needed.
    func makeStore() throws -> any DocumentStore {
        guard let dataDirectory, let databasePath else { return InMemoryDocumentStore() }
        try FileManager.default.createDirectory(atPath: dataDirectory, withIntermediateDirectories: true)
        return try SQLiteDocumentStore(path: databasePath, durability: durability)
    }
}
