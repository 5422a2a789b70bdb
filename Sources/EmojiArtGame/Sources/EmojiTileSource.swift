/// The offline default: tiles are emojis drawn from the palettes, so the game works on a fresh
/// machine with no key and no network.
public struct EmojiTileSource: GameImageSource {
    /// Used when the palettes hold fewer than two emojis.
    public static let fallback = Array("🐶🐱🐭🐹🐰🦊🐻🐼🐨🐯🦁🐮🐷🐸🐵🐔").map(String.init)

    private let emojis: @Sendable () async -> [String]

    /// - Parameter emojis: the emojis to choose from, asked for each picture so palette edits
    ///   show up in the next round.
    public init(emojis: @escaping @Sendable () async -> [String]) {
        self.emojis = emojis
    }

    public func randomImage() async throws(GameImageError) -> GameImage {
        var choices = await emojis()
        if Set(choices).count < 2 { choices = Self.fallback }
        return .emoji(choices.randomElement()!)
    }

    public func status() async -> GameSourceStatus {
        GameSourceStatus(name: "Emoji tiles from your palettes")
    }
}
