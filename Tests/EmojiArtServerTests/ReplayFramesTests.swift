import EmojiArtKit
import Testing

@testable import EmojiArtServer

@Suite("A replay's frames")
struct ReplayFramesTests {
    @Test func samplesSpreadEvenlyAndKeepBothEnds() {
        #expect(HistoryController.sample(from: 3, to: 6, count: 120) == [3, 4, 5, 6])
        #expect(HistoryController.sample(from: 0, to: 100, count: 5) == [0, 25, 50, 75, 100])
        let many = HistoryController.sample(from: 10, to: 100_000, count: 300)
        #expect(many.count == 300 && many.first == 10 && many.last == 100_000)
        #expect(zip(many, many.dropFirst()).allSatisfy { $0 < $1 })
    }

    @Test func bigDocumentsGetFewerFramesJudgedByTheFramesThemselves() throws {
        func document(emojis count: Int) throws -> EmojiArtDocument {
            var document = try EmojiArtDocument(title: "\(count)")
            for index in 0..<count {
                _ = try document.apply(.addEmoji(text: "🐶", position: Point(x: index, y: 0), size: 10))
            }
            return document
        }
        let small = try document(emojis: 10)
        let big = try document(emojis: 50_000)
        // A document that was small for most of its life keeps its frames…
        let growing = Array(repeating: small, count: 299) + [big]
        #expect(HistoryController.withinBudget(growing).count == 300)
        // …and one that was big all along has fewer, still starting and ending where it did.
        var frames = Array(repeating: big, count: 100)
        frames[0] = small
        let kept = HistoryController.withinBudget(frames)
        #expect(kept.count < 100 && kept.count >= 2)
        #expect(kept.reduce(0) { $0 + $1.emojis.count } <= HistoryController.replayBudget)
        #expect(kept.first == small && kept.last == big)
    }
}
