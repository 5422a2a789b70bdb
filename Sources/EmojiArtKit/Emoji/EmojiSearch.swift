import Foundation

/// Finding emojis by what they mean, in one language with English always as a fallback: the
/// search of `GET /api/emoji`, of `emojiart emoji search`, and (the same rules, in JavaScript)
/// of the page's picker. The ranking is docs/EDITOR.md's "How the picker ranks", checked for both
/// against one table (Tests/Fixtures/emoji/search-cases.json).
///
/// Query and terms are compared folded: lower case, compatibility-decomposed, without combining
/// marks ("Étoile" finds "etoile"). Each emoji gets the best of these tiers over its terms (its
/// names and keywords in the language and in English):
///
/// | tier | match |
/// |---|---|
/// | 0 | the name is the query |
/// | 1 | a keyword is the query, or a word of the name is |
/// | 2 | a word of a keyword is the query |
/// | 3 | the name starts with the query |
/// | 4 | a keyword or a word starts with it |
/// | 5 | a name or keyword contains it |
/// | 6 | (a query of several words) each word starts a word of the terms |
///
/// Results are ordered by tier, then by the length of the emoji's name in the language (in code
/// points), then by
/// the catalogue's order. An emoji typed into the query comes first. Skin-tone variants and
/// components are not results: a picker applies the tone chosen.
public struct EmojiSearch: Sendable {
    /// One result: the emoji, its name and keywords in the language, and its group's name.
    public struct Result: Sendable, Hashable {
        public var emoji: String
        public var name: String
        public var keywords: [String]
        public var group: String
    }

    /// Longest query accepted, in characters (code points, as JSON Schema's `maxLength` counts).
    public static let maximumQueryLength = 100

    public let catalogue: EmojiCatalogue
    public let language: String
    private let terms: [Terms]
    /// The language's table, then English's (one table for English): read once, not per result.
    private let tables: [EmojiCatalogue.Annotations]

    /// What one entry is matched against, folded once, as UTF-8 (the folded forms compare byte
    /// by byte, without String's canonical equivalence, which costs far more).
    private struct Terms: Sendable {
        var entry: Int
        var names: [[UInt8]]
        var keywords: [[UInt8]]
        var nameWords: [[UInt8]]
        var keywordWords: [[UInt8]]
        /// Every name and keyword, joined by NULs: one scan tells whether any contains the query.
        var haystack: [UInt8]
        var nameLength: Int
    }

    public init(catalogue: EmojiCatalogue, language: String) throws {
        self.catalogue = catalogue
        let tables = [try catalogue.annotations(language)] + (language == "en" ? [] : [try catalogue.annotations("en")])
        self.language = tables[0].language
        self.tables = tables
        let component = catalogue.groups.firstIndex(of: EmojiCatalogue.componentGroup)
        var terms: [Terms] = []
        terms.reserveCapacity(catalogue.entries.count)
        for (index, entry) in catalogue.entries.enumerated() where entry.group != component {
            var names: [String] = []
            var keywords: [String] = []
            for table in tables {
                if let name = table.names[entry.emoji] { names.append(SearchFolding.fold(name)) }
                keywords += (table.keywords[entry.emoji] ?? []).map(SearchFolding.fold)
            }
            if names.isEmpty { names.append(SearchFolding.fold(entry.unicodeName)) }
            let localName = tables[0].names[entry.emoji] ?? tables.last!.names[entry.emoji] ?? entry.unicodeName
            let bytes = { (texts: [String]) in texts.map { Array($0.utf8) } }
            terms.append(
                Terms(
                    entry: index, names: bytes(names), keywords: bytes(keywords),
                    nameWords: bytes(names.flatMap(Self.words).map(String.init)),
                    keywordWords: bytes(keywords.flatMap(Self.words).map(String.init)),
                    haystack: Array((names + keywords).joined(separator: "\u{0}").utf8),
                    nameLength: localName.unicodeScalars.count))
        }
        self.terms = terms
    }

    /// Checks a query as the API takes it: not empty, at most ``maximumQueryLength`` code points,
    /// no control characters.
    public static func validate(_ query: String) throws {
        // Nothing left once folded (spaces, a lone combining mark): nothing to look for.
        guard !SearchFolding.fold(query).isEmpty else {
            throw EmojiArtError(.invalidText, "the query is empty.", path: "q")
        }
        guard query.unicodeScalars.count <= maximumQueryLength else {
            throw EmojiArtError(.tooLarge, "a query has at most \(maximumQueryLength) characters.", path: "q")
        }
        guard !query.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw EmojiArtError(.invalidText, "the query has control characters.", path: "q")
        }
    }

    /// The emojis matching `query`, best first, at most `limit`; none for a query
    /// ``validate(_:)`` refuses.
    public func search(_ query: String, limit: Int = 50) -> [Result] {
        guard (try? Self.validate(query)) != nil, limit > 0 else { return [] }
        var found: [Int] = []
        var seen = Set<Int>()
        // Emojis typed into the query come first, each once (a tone or FE0F finds its base).
        var rest = ""
        for character in query {
            if character.isEmoji, let entry = catalogue.entry(for: String(character)) {
                if seen.insert(entry.order).inserted { found.append(entry.order) }
            } else {
                rest.append(character)
            }
        }
        let folded = SearchFolding.fold(rest)
        if !folded.isEmpty {
            let query = Array(folded.utf8)
            let queryWords = Self.words(folded).map { Array($0.utf8) }
            var ranked: [(tier: Int, length: Int, order: Int)] = []
            for terms in self.terms where !seen.contains(terms.entry) {
                if let tier = Self.tier(of: terms, query: query, queryWords: queryWords) {
                    ranked.append((tier, terms.nameLength, terms.entry))
                }
            }
            ranked.sort { ($0.tier, $0.length, $0.order) < ($1.tier, $1.length, $1.order) }
            found += ranked.lazy.prefix(limit).map(\.order)
        }
        return found.prefix(limit).map(result)
    }

    private func result(_ order: Int) -> Result {
        let entry = catalogue.entries[order]
        return Result(
            emoji: entry.emoji,
            name: tables.lazy.compactMap { $0.names[entry.emoji] }.first ?? entry.unicodeName,
            keywords: tables.lazy.compactMap { $0.keywords[entry.emoji] }.first ?? [],
            group: catalogue.groups[entry.group])
    }

    private static func tier(of terms: Terms, query: [UInt8], queryWords: [[UInt8]]) -> Int? {
        // Most emojis contain the query nowhere: one scan, and done.
        guard contains(terms.haystack, query) else {
            guard queryWords.count > 1,
                queryWords.allSatisfy({ word in
                    terms.nameWords.contains { hasPrefix($0, word) }
                        || terms.keywordWords.contains { hasPrefix($0, word) }
                })
            else { return nil }
            return 6
        }
        if terms.names.contains(query) { return 0 }
        if terms.keywords.contains(query) || terms.nameWords.contains(query) { return 1 }
        if terms.keywordWords.contains(query) { return 2 }
        if terms.names.contains(where: { hasPrefix($0, query) }) { return 3 }
        if terms.keywords.contains(where: { hasPrefix($0, query) })
            || terms.nameWords.contains(where: { hasPrefix($0, query) })
            || terms.keywordWords.contains(where: { hasPrefix($0, query) })
        {
            return 4
        }
        return 5
    }

    private static func hasPrefix(_ text: [UInt8], _ prefix: [UInt8]) -> Bool {
        text.count >= prefix.count && text.prefix(prefix.count).elementsEqual(prefix)
    }

    /// Whether `needle` occurs in `haystack` (a NUL never matches: the query has none).
    private static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard let first = needle.first, haystack.count >= needle.count else { return needle.isEmpty }
        return haystack.withUnsafeBufferPointer { hay in
            needle.withUnsafeBufferPointer { pin in
                var index = 0
                let last = hay.count - pin.count
                while index <= last {
                    if hay[index] == first {
                        var matched = 1
                        while matched < pin.count && hay[index + matched] == pin[matched] { matched += 1 }
                        if matched == pin.count { return true }
                    }
                    index += 1
                }
                return false
            }
        }
    }

    /// The words of a folded term: split on spaces, hyphens, colons, commas and quotes.
    static func words(_ folded: String) -> [Substring] {
        folded.split(whereSeparator: { " -:,\"“”‘’".contains($0) })
    }
}
