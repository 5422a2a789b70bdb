import EmojiArtCLI
import EmojiArtStore
import EmojiArtStorePostgres

/// `emojiart`: every command, with PostgreSQL for `--database` (several servers on one
/// database). `emojiart-sqlite` is the same program without it.
@main
enum EmojiArtMain {
    static func main() async {
        await DatabaseDriver.$installed.withValue(.postgreSQL) {
            await EmojiArtCommand.main()
        }
    }
}
