/// The documented bounds every document obeys. Readers, edits and the server all check these,
/// so a document that exists is always within them.
public enum DocumentLimits {
    /// Emoji positions are within ±1,000,000 points on each axis.
    public static let coordinateRange: ClosedRange<Int> = -1_000_000...1_000_000
    /// Emoji sizes (the font size in points) are 1...1024.
    public static let sizeRange: ClosedRange<Int> = 1...1024
    /// A document holds at most 100,000 emojis.
    public static let maximumEmojiCount = 100_000
    /// Emoji ids are non-negative and exactly representable in JavaScript (2^53 − 1).
    public static let idRange: ClosedRange<Int> = 0...9_007_199_254_740_991
    /// Titles are 1...200 characters (grapheme clusters)…
    public static let maximumTitleLength = 200
    /// …and at most 1 KiB of UTF-8, so one "character" of 20,000 combining accents can't be a
    /// 40 KB title.
    public static let maximumTitleBytes = 1024
    /// Background URLs are at most 8 KiB.
    public static let maximumURLLength = 8 * 1024
    /// Embedded background images are at most 16 MiB.
    public static let maximumImageBytes = 16 * 1024 * 1024
    /// A `.emojiart` file is at most 32 MiB (a 16 MiB image grows by a third as base64).
    public static let maximumFileBytes = 32 * 1024 * 1024
    /// Resize scale factors must be finite and within 1/1024...1024.
    public static let scaleRange: ClosedRange<Double> = (1.0 / 1024)...1024
    /// One emoji grapheme has at most 16 Unicode scalars (the longest standard ones have 10).
    public static let maximumScalarsPerEmoji = 16

    /// `text` cut to a title's limits, at a character boundary: at most
    /// ``maximumTitleLength`` characters and ``maximumTitleBytes`` bytes.
    public static func clampedTitle(_ text: some StringProtocol) -> String {
        var result = ""
        var bytes = 0
        for character in text.prefix(maximumTitleLength) {
            bytes += character.utf8.count
            guard bytes <= maximumTitleBytes else { break }
            result.append(character)
        }
        return result
    }
}
