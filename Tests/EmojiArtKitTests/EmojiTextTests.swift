import EmojiArtKit
import Testing

@Suite("An emoji's text is exactly one emoji grapheme")
struct EmojiTextTests {
    static let accepted: [(String, String)] = [
        ("😀", "emoji presentation"),
        ("🚚", "vehicle"),
        ("🏎", "text-default above U+238D, as in the original palettes"),
        ("⛷", "skier without selector, as in the original palettes"),
        ("☀️", "text-style + VS16"),
        ("❤️", "heart + VS16"),
        ("©️", "copyright + VS16"),
        ("‼️", "double exclamation + VS16"),
        ("⌚", "watch, presentation below U+238D"),
        ("👍🏽", "skin tone"),
        ("👋🏿", "darkest skin tone"),
        ("🧑🏻‍💻", "ZWJ with skin tone"),
        ("👨‍👩‍👧‍👦", "family ZWJ"),
        ("🐻‍❄️", "polar bear ZWJ with VS16"),
        ("🏳️‍🌈", "rainbow flag ZWJ"),
        ("👩‍❤️‍💋‍👨", "kiss ZWJ"),
        ("👩🏻‍❤️‍💋‍👨🏼", "kiss ZWJ with skin tones"),
        ("❤️‍🔥", "heart on fire"),
        ("🇫🇷", "flag"),
        ("🇯🇵", "flag"),
        ("🏴󠁧󠁢󠁳󠁣󠁴󠁿", "subdivision flag (Scotland)"),
        ("1️⃣", "keycap with VS16"),
        ("#⃣", "keycap without VS16"),
        ("*️⃣", "asterisk keycap"),
        ("🫠", "Unicode 14 emoji"),
        ("🩷", "Unicode 15 emoji"),
    ]

    static let rejected: [(String, String)] = [
        ("a", "a letter"),
        ("1", "a digit"),
        ("#", "a hash"),
        ("", "nothing"),
        ("😀😀", "two emojis"),
        ("🇫🇷🇯🇵", "two flags"),
        ("\u{0301}", "a bare combining mark"),
        ("a\u{0301}", "a letter with a combining mark"),
        ("😀\u{0301}", "an emoji with a combining mark"),
        ("\u{0007}", "a control character"),
        ("\n", "a line break"),
        ("\u{200D}", "a lone zero-width joiner"),
        ("©", "copyright without VS16"),
        ("™", "trademark without VS16"),
        ("↔", "arrow without VS16"),
        ("☀\u{FE0E}", "text presentation selector"),
        ("1⃣1", "keycap followed by a digit"),
        ("🇫", "a lone regional indicator"),
        ("é", "an accented letter"),
        ("中", "a CJK character"),
        (" ", "a space"),
        ("😀 ", "an emoji and a space"),
        ("\u{FE0F}", "a bare variation selector"),
        ("a\u{FE0F}", "a letter with VS16"),
        ("👍🏽🏽", "two skin tones"),
        ("\u{E0067}", "a bare tag character"),
        ("🏽", "a bare skin tone, which fuses with the emoji before it"),
        (String(repeating: "👨‍", count: 12) + "👨", "an overlong ZWJ chain"),
    ]

    @Test("accepts real emoji", arguments: accepted)
    func accepts(text: String, kind: String) throws {
        #expect(text.count == 1, "\(kind)")
        #expect(text.first?.isEmoji == true, "\(kind)")
        var document = try EmojiArtDocument()
        try document.apply(.addEmoji(text: text, position: .zero, size: 40))
        #expect(document.emojis.first?.text == text)
    }

    @Test("rejects non-emoji text with a clear error", arguments: rejected)
    func rejects(text: String, kind: String) throws {
        var document = try EmojiArtDocument()
        let error = #expect(throws: EmojiArtError.self, "\(kind)") {
            try document.apply(.addEmoji(text: text, position: .zero, size: 40))
        }
        #expect(error?.code == .invalidEmoji)
        #expect(error?.message.contains("is not a single emoji") == true)
        #expect(document.emojis.isEmpty)
    }

    @Test func tableIsLargeEnough() {
        #expect(Self.accepted.count + Self.rejected.count >= 30)
    }

    @Test func uniqueEmojisKeepsOnlyEmojiOnceInOrder() {
        #expect("a😀b😀🚀".uniqueEmojis == "😀🚀")
        #expect("🇫🇷1️⃣x🇫🇷".uniqueEmojis == "🇫🇷1️⃣")
    }
}
