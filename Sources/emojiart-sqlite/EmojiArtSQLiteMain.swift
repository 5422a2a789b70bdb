import EmojiArtCLI

/// `emojiart-sqlite`: every command of `emojiart`, with documents in the embedded SQLite file
/// (or in memory) only — no PostgreSQL driver, so it builds without the PostgreSQL client and
/// the copy of BoringSSL its authentication brings. `scripts/serve` runs it: a fresh clone
/// serves the editor sooner (docs/PERFORMANCE.md, "A newcomer's first build").
@main
enum EmojiArtSQLiteMain {
    static func main() async {
        await EmojiArtCommand.main()
    }
}
