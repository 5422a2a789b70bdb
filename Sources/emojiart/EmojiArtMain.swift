import EmojiArtCLI

@main
enum EmojiArtMain {
    static func main() async {
        await EmojiArtCommand.main()
    }
}
