import ArgumentParser
import EmojiArtKit

/// `emojiart`: create, inspect, convert and edit `.emojiart` documents headless.
///
/// `--database` needs a driver: the `emojiart` program installs PostgreSQL's around `main()`
/// (``DatabaseDriver/installed``); run in process without one (`emojiart-sqlite`, tests) the
/// commands keep documents in SQLite only and refuse a database URL.
public struct EmojiArtCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "emojiart",
        abstract: "Create, inspect, convert and edit EmojiArt documents.",
        discussion: """
            Reads every .emojiart format: EmojiArt's own (native) and both generations of the \
            original CS193P app (cs193p-2023, cs193p-2021). Commands that change a file keep its \
            format and replace it atomically.
            """,
        subcommands: [
            Serve.self, New.self, Info.self, Convert.self, Validate.self, AddEmoji.self, SetBackground.self,
            Render.self, History.self, Palettes.self, Users.self, Tokens.self, Backup.self, Restore.self,
            ExportAll.self, JokeCommand.self, EmojiCommand.self, MosaicCommand.self,
        ]
    )

    public init() {}
}

extension DocumentFormat: ExpressibleByArgument {}

extension Point: ExpressibleByArgument {
    /// `X,Y` in document points, y up, e.g. `--at -40,120`.
    public init?(argument: String) {
        let parts = argument.split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count == 2,
            let x = Int(parts[0].trimmingCharacters(in: .whitespaces)),
            let y = Int(parts[1].trimmingCharacters(in: .whitespaces))
        else { return nil }
        self.init(x: x, y: y)
    }
}
