extension Character {
    /// Whether this character is one emoji as users mean it: a single emoji grapheme.
    ///
    /// Accepted: emoji-presentation characters (😀), text-default emoji at or above U+238D
    /// (🏎 ⛷, which the original palettes use without a selector), any emoji followed by VS16
    /// (☀️ ©️), skin-tone modified emoji (👍🏽), ZWJ sequences of those (👨‍👩‍👧‍👦 🐻‍❄️),
    /// flags (🇫🇷), subdivision flags (🏴󠁧󠁢󠁳󠁣󠁴󠁿) and keycaps (1️⃣ #⃣).
    /// Rejected: letters, digits and symbols on their own ("a", "1", "©"), combining marks
    /// that are not part of an emoji sequence, controls, text presentation (VS15).
    public var isEmoji: Bool {
        EmojiGrammar.accepts(Array(unicodeScalars))
    }
}

extension String {
    /// The emoji characters of this string, in order, without duplicates.
    public var uniqueEmojis: String {
        var seen = Set<Character>()
        return String(filter { $0.isEmoji && seen.insert($0).inserted })
    }
}

/// The grammar of one emoji grapheme, after Unicode's UTS #51 emoji sequences.
enum EmojiGrammar {
    static let zeroWidthJoiner: Unicode.Scalar = "\u{200D}"
    static let variationSelector16: Unicode.Scalar = "\u{FE0F}"
    static let combiningEnclosingKeycap: Unicode.Scalar = "\u{20E3}"
    static let blackFlag: Unicode.Scalar = "\u{1F3F4}"
    static let cancelTag: Unicode.Scalar = "\u{E007F}"

    static func accepts(_ scalars: [Unicode.Scalar]) -> Bool {
        guard !scalars.isEmpty, scalars.count <= DocumentLimits.maximumScalarsPerEmoji else {
            return false
        }
        if isKeycap(scalars) || isFlag(scalars) || isTagSequence(scalars) { return true }
        // A ZWJ sequence: elements joined by U+200D, none empty.
        var elements: [[Unicode.Scalar]] = [[]]
        for scalar in scalars {
            if scalar == zeroWidthJoiner {
                elements.append([])
            } else {
                elements[elements.count - 1].append(scalar)
            }
        }
        if elements.count == 1 { return isElement(elements[0], standalone: true) }
        return elements.allSatisfy { isElement($0, standalone: false) }
    }

    /// One emoji with an optional skin tone and/or VS16.
    private static func isElement(_ scalars: [Unicode.Scalar], standalone: Bool) -> Bool {
        guard let base = scalars.first, base.properties.isEmoji, !base.isASCII, !isRegionalIndicator(base) else {
            return false
        }
        let rest = scalars.dropFirst()
        switch rest.count {
        case 0:
            // A bare skin tone combines with whatever emoji precedes it, so it is no emoji alone.
            if base.properties.isEmojiModifier { return false }
            // Text-default emoji below U+238D (©, ™, ‼, ↔) need VS16 on their own;
            // inside a ZWJ sequence the sequence itself makes them emoji.
            return !standalone || base.properties.isEmojiPresentation || base.value >= 0x238D
        case 1:
            let modifier = rest[rest.startIndex]
            return modifier == variationSelector16
                || (modifier.properties.isEmojiModifier && base.properties.isEmojiModifierBase)
        case 2:
            let first = rest[rest.startIndex]
            let second = rest[rest.startIndex + 1]
            return first.properties.isEmojiModifier && base.properties.isEmojiModifierBase
                && second == variationSelector16
        default:
            return false
        }
    }

    /// `[0-9#*] VS16? U+20E3`
    private static func isKeycap(_ scalars: [Unicode.Scalar]) -> Bool {
        guard let base = scalars.first, scalars.last == combiningEnclosingKeycap else { return false }
        let isKeycapBase = ("0"..."9").contains(base) || base == "#" || base == "*"
        switch scalars.count {
        case 2: return isKeycapBase
        case 3: return isKeycapBase && scalars[1] == variationSelector16
        default: return false
        }
    }

    /// Two regional indicators.
    private static func isFlag(_ scalars: [Unicode.Scalar]) -> Bool {
        scalars.count == 2 && scalars.allSatisfy(isRegionalIndicator)
    }

    /// One half of a flag; alone it draws as a boxed letter, not an emoji.
    private static func isRegionalIndicator(_ scalar: Unicode.Scalar) -> Bool {
        (0x1F1E6...0x1F1FF).contains(scalar.value)
    }

    /// 🏴 followed by tag characters and the cancel tag (England, Scotland, Wales).
    private static func isTagSequence(_ scalars: [Unicode.Scalar]) -> Bool {
        guard scalars.count >= 3, scalars.first == blackFlag, scalars.last == cancelTag else {
            return false
        }
        return scalars.dropFirst().dropLast().allSatisfy { (0xE0020...0xE007E).contains($0.value) }
    }
}
