import ArgumentParser
import EmojiArtLive
import EmojiArtServer
import EmojiArtStore
import EmojiArtStoreSQLite
import Foundation

/// `--data` / `--database`: the stores `emojiart serve` with the same options uses, for the
/// commands that work on a server's database (palettes, users, tokens), also while it runs.
struct StoreOptions: ParsableArguments {
    @Option(help: "The server's data folder ($EMOJIART_DATA).")
    var data: String?

    @Option(help: "The server's PostgreSQL database, if it uses one ($EMOJIART_DATABASE_URL; `emojiart` only).")
    var database: String?

    /// The palettes of the user named `user`, or local mode's.
    func library(of user: String?) async throws -> PaletteLibrary {
        let stores = try await stores()
        guard let user else { return PaletteLibrary(store: stores.palettes) }
        guard let owner = try await stores.users.user(named: user)?.user else {
            throw CommandFailure(
                "There is no user named \"\(user.prefix(64))\"; `emojiart users list` shows who there is.")
        }
        return PaletteLibrary(store: stores.palettes, owner: owner.id)
    }

    /// The stores `emojiart serve` with the same options uses.
    func stores() async throws -> Stores {
        var configuration = try ServerConfiguration.fromProcessEnvironment(only: ServerConfiguration.storeVariables)
        if let data { configuration.dataDirectory = data }
        if let database { configuration.databaseURL = database }
        if configuration.databaseURL != nil, data == nil {
            return try await configuration.openStores(logger: .init(label: "emojiart"))
        }
        let folder = try require(configuration.dataDirectory)
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        return try .sqlite(path: try require(configuration.databasePath))
    }

    private func require(_ value: String?) throws -> String {
        guard let value else { throw ValidationError("No data folder; use --data.") }
        return value
    }
}

/// `--user`: whose palettes a `palettes` command works on (accounts mode).
struct PaletteOwner: ParsableArguments {
    @Option(help: "Work on this user's palettes (accounts mode); without it, local mode's.")
    var user: String?
}
