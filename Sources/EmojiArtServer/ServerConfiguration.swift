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
