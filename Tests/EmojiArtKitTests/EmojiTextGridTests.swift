import Testing

@testable import EmojiArtKit

@Suite struct EmojiTextGridTests {
    func emoji(_ id: Int, _ text: String, _ x: Int, _ y: Int, size: Int = 20) -> Emoji {
        Emoji(id: id, text: text, position: Point(x: x, y: y), size: size)
    }

    @Test func rowsOfEmojiWithFillersBetween() {
        let grid = EmojiTextGrid([
            emoji(1, "🟥", 0, 0), emoji(2, "🟦", 40, 0), emoji(3, "🌲", 20, -20), emoji(4, "🐶", 0, -60),
        ])
        #expect(grid.text() == "🟥\u{3000}🟦\n\u{3000}🌲\n\n🐶\n")
        #expect(grid.text(filler: .square) == "🟥⬜🟦\n⬜🌲\n\n🐶\n")
    }

    @Test func nearlyOnTheGridIsOnIt() {
        // A mosaic's cells, a point off here and there, are still one row.
        let grid = EmojiTextGrid([emoji(1, "🟥", 1, 0), emoji(2, "🟧", 19, 1), emoji(3, "🟨", 41, -1)])
        #expect(grid.text() == "🟥🟧🟨\n")
    }

    @Test func aMosaicsLatticeWiderThanItsEmojisKeepsEveryColumn() {
        // Cells of 6.4 points with 6-point emojis at whole points: 0, 6, 13, 19, 26, …
        let row = (0..<40).map { emoji($0, $0 % 2 == 0 ? "🟥" : "🟦", Int((Double($0) * 6.4).rounded()), 0, size: 6) }
        let cells = EmojiTextGrid(row).rows[0]
        #expect(cells.count == 40 && cells.allSatisfy { $0 != nil })
    }

    @Test func theOneOnTopWinsACell() {
        let grid = EmojiTextGrid([emoji(1, "🟥", 0, 0), emoji(2, "🟦", 2, 0)])
        #expect(grid.text() == "🟦\n")
    }

    @Test func fewerColumnsMakeACoarserGrid() {
        let row = (0..<10).map { emoji($0, $0 % 2 == 0 ? "🟥" : "🟦", $0 * 20, 0) }
        #expect(EmojiTextGrid(row).rows[0].count == 10)
        let narrow = EmojiTextGrid(row, columns: 5)
        #expect(narrow.rows[0].count <= 5)
        #expect(EmojiTextGrid(row, columns: 1).text() == "🟦\n")
    }

    @Test func farApartEmojisStayWithinTheLimits() {
        let grid = EmojiTextGrid([
            emoji(1, "🟥", -1_000_000, 1_000_000), emoji(2, "🟦", 1_000_000, -1_000_000, size: 1),
        ])
        #expect(grid.rows.count <= EmojiTextGrid.maximumRows)
        #expect(grid.rows.allSatisfy { $0.count <= EmojiTextGrid.maximumColumns })
        #expect(EmojiTextGrid([]).text() == "")
    }
}
