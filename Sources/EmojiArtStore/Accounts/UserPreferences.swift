import EmojiArtKit
import Foundation

/// What the editor remembers for a person with an account, wherever they sign in: the emoji
/// picker's skin tone and the emojis they used last (`GET`/`PUT /api/session/preferences`).
/// Visitors without an account keep the same in their browser.
public struct UserPreferences: Sendable, Equatable, Codable {
    /// The picker's skin tone: 0 for none (the yellow default), 1–5 light to dark.
    public var skinTone: Int
    /// The emojis placed or chosen last, most recent first, at most ``maximumRecentEmojis``.
    public var recentEmojis: [String]

    public static let maximumRecentEmojis = 36
    public static let skinTones = 0...5

    public init(skinTone: Int = 0, recentEmojis: [String] = []) {
        self.skinTone = skinTone
        self.recentEmojis = recentEmojis
    }

    /// Throws unless the tone is 0–5 and the recent emojis are at most 36 single emojis, each once.
    public func validate() throws {
        guard Self.skinTones.contains(skinTone) else {
            throw EmojiArtError(.outOfRange, "skinTone is 0 (none) to 5 (dark).", path: "skinTone")
        }
        guard recentEmojis.count <= Self.maximumRecentEmojis else {
            throw EmojiArtError(
                .tooLarge, "at most \(Self.maximumRecentEmojis) recent emojis are kept.", path: "recentEmojis")
        }
        var seen = Set<String>()
        for (index, text) in recentEmojis.enumerated() {
            try Emoji.validateText(text, path: "recentEmojis[\(index)]")
            guard seen.insert(text).inserted else {
                throw EmojiArtError(.outOfRange, "\(text) is listed twice.", path: "recentEmojis[\(index)]")
            }
        }
    }
}
