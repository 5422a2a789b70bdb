import EmojiArtKit
import Foundation
import Testing

@Suite("The emoji catalogue: every emoji once, tones linked, found in many languages")
struct EmojiCatalogueTests {
    let catalogue: EmojiCatalogue

    init() throws {
        catalogue = try #require(EmojiCatalogue.bundled, "the bundled catalogue loads")
    }

    /// Debian's emoji-test.txt, the catalogue's source (scripts/test installs unicode-data).
    static let emojiTest = URL(fileURLWithPath: "/usr/share/unicode/emoji/emoji-test.txt")

    @Test(.enabled(if: FileManager.default.fileExists(atPath: emojiTest.path)))
    func everyFullyQualifiedEmojiOfEmojiTestIsThereOnce() throws {
        let lines = try String(contentsOf: Self.emojiTest, encoding: .utf8).split(separator: "\n")
        var expected: [String] = []
        for line in lines where line.contains("; fully-qualified") || line.contains("; component") {
            let codes = line.split(separator: ";")[0].split(separator: " ")
            expected.append(
                String(
                    String.UnicodeScalarView(codes.compactMap { UInt32($0, radix: 16).flatMap(Unicode.Scalar.init) })))
        }
        let listed = catalogue.entries.flatMap { [$0.emoji] + $0.variants }
        #expect(expected.count > 3600)
        #expect(listed.count == expected.count)
        #expect(Set(listed).count == listed.count, "no emoji twice")
        #expect(Set(listed) == Set(expected))
        // In emoji-test.txt's order: the bases are, and each variant follows its base.
        #expect(
            catalogue.entries.map(\.emoji)
                == expected.filter { text in catalogue.entries.contains { $0.emoji == text } })
        #expect(catalogue.unicodeVersion == "15.0")
    }

    @Test func toneVariantsBelongToTheirBase() throws {
        let wave = try #require(catalogue.entry(for: "👋🏽"))
        #expect(wave.emoji == "👋")
        #expect(wave.variants == ["👋🏻", "👋🏼", "👋🏽", "👋🏾", "👋🏿"])
        #expect(catalogue.withTone(wave, tone: 3) == "👋🏽")
        #expect(catalogue.withTone(wave, tone: 0) == "👋")
        // Every toned emoji is a variant, even when its untoned form is another emoji (🫱🏻‍🫲🏼 of 🤝).
        let component = catalogue.groups.firstIndex(of: EmojiCatalogue.componentGroup)
        let tonedBases = catalogue.entries.filter { entry in
            entry.group != component && entry.emoji.unicodeScalars.contains(where: EmojiCatalogue.tones.contains)
        }
        #expect(tonedBases.isEmpty, "\(tonedBases.map(\.emoji))")
        #expect(catalogue.entry(for: "🫱🏻‍🫲🏼")?.emoji == "🤝")
        #expect(catalogue.entry(for: "👩🏻‍🤝‍👩🏼")?.emoji == "👭")
        #expect(catalogue.entry(for: "🧑🏻‍❤️‍💋‍🧑🏼")?.emoji == "💏")
        #expect(catalogue.withTone(try #require(catalogue.entry(for: "🤝")), tone: 2) == "🤝🏼")
        // Two people: the tone goes on both.
        let holding = try #require(catalogue.entry(for: "🧑🏻‍🤝‍🧑🏿"))
        #expect(holding.emoji == "🧑‍🤝‍🧑")
        #expect(holding.variants.count == 25)
        #expect(catalogue.withTone(holding, tone: 5) == "🧑🏿‍🤝‍🧑🏿")
        // Hair styles are their own emojis, with their own tones.
        #expect(catalogue.entry(for: "👨🏾‍🦰")?.emoji == "👨‍🦰")
        // No variants: the emoji itself, whatever the tone.
        let fox = try #require(catalogue.entry(for: "🦊"))
        #expect(fox.variants.isEmpty && catalogue.withTone(fox, tone: 4) == "🦊")
        // Written without its variation selector, an emoji is still found.
        #expect(catalogue.entry(for: "\u{2764}")?.emoji == "❤️")
        #expect(catalogue.entry(for: "x") == nil)
    }

    @Test func namesComeInTheLanguageAskedForWithEnglishBehind() throws {
        #expect(catalogue.name(of: "🦊", language: "de") == "Fuchs")
        #expect(catalogue.name(of: "🦊", language: "fr") == "renard")
        #expect(catalogue.name(of: "👋🏽") == "waving hand: medium skin tone")
        #expect(catalogue.name(of: "👋🏽", language: "de") == "winkende Hand: mittlere Hautfarbe")
        #expect(catalogue.name(of: "🇩🇪") == "flag: Germany")
        // Unicode 15's newest emojis have no CLDR 41 names: Unicode's own.
        #expect(catalogue.name(of: "🫨", language: "de") == "shaking face")
        #expect(catalogue.name(of: "🦊", language: "xx") == "fox")
        #expect(catalogue.language(for: ["de-CH", "en"]) == "de")
        #expect(catalogue.language(for: ["zh-TW"]) == "zh-Hant")
        #expect(catalogue.language(for: ["pt-PT"]) == "pt-PT")
        #expect(catalogue.language(for: ["pt-BR"]) == "pt")
        #expect(catalogue.language(for: ["nb-NO"]) == "no")
        #expect(catalogue.language(for: ["xx", "fr-CA"]) == "fr")
        #expect(catalogue.language(for: ["tlh"]) == "en")
        #expect(catalogue.languageFiles.count >= 30)
    }

    struct SearchCase: Decodable, CustomTestStringConvertible {
        struct Within: Decodable {
            var n: Int
            var emojis: [String]
        }

        var lang: String
        var q: String
        var first: String?
        var within: Within?
        var absent: [String]?
        var testDescription: String { "\(lang): \(q)" }
    }

    struct SearchCases: Decodable {
        var cases: [SearchCase]
    }

    static let searchCases: [SearchCase] = {
        let url = fixturesDirectory.appendingPathComponent("emoji/search-cases.json")
        return (try? JSONDecoder().decode(SearchCases.self, from: Data(contentsOf: url)).cases) ?? []
    }()

    @Test("searches rank as the shared table says", arguments: searchCases)
    func searchRanks(_ example: SearchCase) throws {
        let search = try catalogue.search(in: catalogue.language(for: [example.lang]))
        let results = search.search(example.q, limit: 100).map(\.emoji)
        if let first = example.first { #expect(results.first == first, "\(results.prefix(8))") }
        if let within = example.within {
            for emoji in within.emojis {
                #expect(results.prefix(within.n).contains(emoji), "\(emoji) in \(results.prefix(within.n))")
            }
        }
        for emoji in example.absent ?? [] { #expect(!results.contains(emoji)) }
    }

    @Test func theTableHasCases() {
        #expect(Self.searchCases.count >= 15)
    }

    @Test func catWordsComeBeforeLongerWordsThatStartWithIt() throws {
        let results = try catalogue.search(in: "en").search("cat", limit: 200)
        let index = { (emoji: String) in results.firstIndex { $0.emoji == emoji } ?? .max }
        for cat in ["🐈", "🐱", "😺"] {
            // Anything that only has "cat…" inside a longer word comes after every real cat.
            for other in results
            where !other.name.lowercased().split(separator: " ").contains("cat")
                && !other.keywords.map({ $0.lowercased() }).contains("cat")
            {
                #expect(index(cat) < index(other.emoji), "\(cat) before \(other.emoji) \(other.name)")
            }
        }
        #expect(results.first?.group == "Animals & Nature")
    }

    @Test func badQueriesFindNothingAndAreRefused() throws {
        let search = try catalogue.search(in: "en")
        // 101 code points in 51 characters: too long, as JSON Schema counts.
        let combining = "a" + String(repeating: "e\u{301}", count: 50)
        for query in [
            "", "   ", String(repeating: "a", count: 101), combining, "fox\u{0}", "a\nb", "\u{2028}", "\u{301}",
        ] {
            #expect(search.search(query).isEmpty)
            #expect(throws: EmojiArtError.self) { try EmojiSearch.validate(query) }
        }
        #expect(throws: Never.self) { try EmojiSearch.validate(String(repeating: "a", count: 100)) }
        #expect(search.search("fox", limit: 0).isEmpty)
        #expect(search.search("a", limit: 7).count == 7)
    }

    @Test func foldingIgnoresCaseAndAccents() {
        #expect(SearchFolding.fold("  Étoile   Filante ") == "etoile filante")
        #expect(SearchFolding.fold("FUCHS") == "fuchs")
        #expect(SearchFolding.fold("red\u{FEFF}heart\u{FEFF}") == "red heart", "as the page's \\s folds it")
    }
}
