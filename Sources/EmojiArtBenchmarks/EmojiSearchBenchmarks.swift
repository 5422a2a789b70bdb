import EmojiArtKit
import Foundation

/// The server's emoji search (`GET /api/emoji`, `emojiart emoji search`): every 1–3 letter query
/// a person types on the way to a word, in English and German, timed one by one. The page's own
/// search is measured in Chromium by Tests/Browser/measure_emoji_search.py.
enum EmojiSearchBenchmarks {
    /// Words people look for; their first one, two and three letters are the queries.
    static let words = [
        "cat", "dog", "fox", "heart", "smile", "sun", "tree", "flag", "car", "pizza", "star", "fire", "hand", "face",
        "moon", "fish", "bird", "ball", "music", "book", "party", "cake", "coffee", "rain", "snow", "house", "water",
        "Katze", "Hund", "Fuchs", "Herz", "lachen", "Sonne", "Baum", "Flagge", "Auto", "Stern", "Feuer", "Hand",
        "Gesicht", "Mond", "Fisch", "Vogel", "Musik", "Buch", "Kuchen", "Kaffee", "Regen", "Schnee", "Haus", "Wasser",
    ]

    static func run(smoke: Bool, into report: inout Report) throws {
        guard let catalogue = EmojiCatalogue.bundled else { throw BenchmarkError("the emoji catalogue is missing") }
        var queries = Set<String>()
        for word in words {
            for length in 1...3 { queries.insert(String(word.lowercased().prefix(length))) }
        }
        for letter in "abcdefghijklmnopqrstuvwxyz" { queries.insert(String(letter)) }
        let ordered = queries.sorted()
        let rounds = smoke ? 1 : 20
        for language in ["en", "de"] {
            let built = ContinuousClock.now
            let search = try catalogue.search(in: language)
            let buildTime = seconds(ContinuousClock.now - built)
            var samples: [Double] = []
            var found = 0
            for _ in 0..<rounds {
                for query in ordered {
                    let start = ContinuousClock.now
                    found += search.search(query, limit: 50).count
                    samples.append(seconds(ContinuousClock.now - start))
                }
            }
            samples.sort()
            report.add(
                "Emoji search (\(language)), \(ordered.count) queries of 1–3 letters × \(rounds)",
                "p50 \(format(percentile(samples, 0.5) * 1000, 2)) ms, p95 \(format(percentile(samples, 0.95) * 1000, 2)) ms, max \(format((samples.last ?? 0) * 1000, 2)) ms; index built in \(format(buildTime * 1000, 0)) ms",
                target: "p95 ≤ 4 ms (issue #34)")
            precondition(found > 0, "the searches found nothing")
        }
    }
}
