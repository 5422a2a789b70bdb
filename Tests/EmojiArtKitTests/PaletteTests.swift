import EmojiArtKit
import Foundation
import Testing

@Suite("Palettes: built-ins, rules and the original apps' files")
struct PaletteTests {
    @Test func theNineBuiltInsComeInOrderWithUniqueEmojis() {
        let list = PaletteList()
        #expect(
            list.palettes.map(\.name) == [
                "Vehicles", "Sports", "Music", "Animals", "Animal Faces", "Flora", "Weather", "COVID", "Faces",
            ])
        #expect(Set(list.palettes.map(\.id)).count == 9)
        for palette in list.palettes {
            #expect(palette.emojis == palette.emojis.uniqueEmojis, "\(palette.name)")
            #expect(!palette.emojis.isEmpty)
        }
        #expect(list.palettes[0].emojis.hasPrefix("🚙🚗🚘🚕🚖🏎🚚"))
    }

    @Test func addingKeepsOnlyEmojiDropsDuplicatesAndPutsNewOnesFirst() {
        var palette = Palette(name: "Test", emojis: "🚗🚀")
        palette.addEmojis("a😀b😀🚀 1x")
        #expect(palette.emojis == "😀🚀🚗")
        palette.addEmojis("")
        #expect(palette.emojis == "😀🚀🚗")
        palette.removeEmoji("🚀")
        #expect(palette.emojis == "😀🚗")
        palette.removeEmoji("🐶")
        #expect(palette.emojis == "😀🚗")
    }

    @Test func addedTextNeverFusesWithExistingEmojis() {
        var flags = Palette(name: "Flags", emojis: "🇷🇺🇺🇸")
        flags.addEmojis("🇫")
        #expect(Array(flags.emojis) == ["🇷🇺", "🇺🇸"])
        var food = Palette(name: "Food", emojis: "🔥🍕")
        food.addEmojis("😀\u{200D}")
        #expect(Array(food.emojis) == ["🔥", "🍕"])
        var hands = Palette(name: "Hands", emojis: "🏽🍕")
        #expect(hands.emojis == "🍕")
        hands.addEmojis("👍")
        #expect(Array(hands.emojis) == ["👍", "🍕"])
    }

    @Test func decodingAPaletteAppliesTheSameRules() throws {
        let json = #"{"id":"00000000-0000-0000-0000-000000000001","name":"X","emojis":"a😀😀b"}"#
        #expect(try JSONDecoder().decode(Palette.self, from: Data(json.utf8)).emojis == "😀")
    }

    @Test func theLastPaletteCanNeverBeDeleted() throws {
        var list = PaletteList()
        for palette in list.palettes.dropLast() {
            try list.remove(id: palette.id)
        }
        #expect(list.palettes.count == 1)
        let error = #expect(throws: EmojiArtError.self) { try list.remove(id: list.palettes[0].id) }
        #expect(error?.code == .lastPalette)
        #expect(error?.message.contains("last palette") == true)
        #expect(list.palettes.count == 1)
        #expect(throws: EmojiArtError.self) { try PaletteList([]) }
    }

    @Test func theCursorWrapsBothWays() {
        let list = PaletteList()
        let ids = list.palettes.map(\.id)
        #expect(list.palette(1, from: ids[0]).name == "Sports")
        #expect(list.palette(1, from: ids[8]).name == "Vehicles")
        #expect(list.palette(-1, from: ids[0]).name == "Faces")
        #expect(list.palette(-10, from: ids[0]).name == "Faces")
        #expect(list.palette(19, from: ids[0]).name == "Sports")
        #expect(list.palette(1, from: UUID()).name == "Vehicles")
        #expect(list.palette(0, from: nil).name == "Vehicles")
        #expect(list.palette(.max, from: ids[0]).name == list.palette(Int.max % 9, from: ids[0]).name)
        #expect(list.palette(.min, from: ids[0]).name == list.palette(Int.min % 9, from: ids[0]).name)
    }

    @Test func insertRenameMoveAndEdit() throws {
        var list = PaletteList()
        let new = try list.insert(Palette(name: "New", emojis: ""), at: 1)
        #expect(list.palettes[1].id == new.id)
        try list.rename(id: new.id, to: "Party <b>")
        try list.addEmojis("🎉🎈x", to: new.id)
        #expect(list[id: new.id]?.emojis == "🎉🎈")
        try list.removeEmoji("🎉", from: new.id)
        try list.move(id: new.id, to: 100)
        #expect(list.palettes.last?.name == "Party <b>")
        try list.move(id: new.id, to: 0)
        #expect(list.palettes.first?.emojis == "🎈")
        #expect(throws: EmojiArtError.self) { try list.rename(id: new.id, to: "") }
        #expect(throws: EmojiArtError.self) { try list.rename(id: new.id, to: String(repeating: "n", count: 101)) }
        // Few characters, many bytes: combining marks pile up on one character.
        let zalgo = "Z" + String(repeating: "\u{0336}", count: 600)
        #expect(zalgo.count == 1 && zalgo.utf8.count > Palette.maximumNameBytes)
        #expect(throws: EmojiArtError.self) { try list.rename(id: new.id, to: zalgo) }
        try list.rename(id: new.id, to: "Z" + String(repeating: "\u{0336}", count: 200))  // 401 bytes: fine
        #expect(throws: EmojiArtError.self) { try list.rename(id: UUID(), to: "Ghost") }
        #expect(throws: EmojiArtError.self) { try list.insert(new) }
    }

    @Test func bothOriginalPaletteFilesImport() throws {
        let palettes2021 = try PaletteFile.read(try fixture("palettes-2021-Default.json"))
        #expect(
            palettes2021.map(\.name) == [
                "Faces", "COVID", "Weather", "Flora", "Animal Faces", "Animals", "Music", "Sports", "Vehicles",
            ])
        let palettes2023 = try PaletteFile.read(try fixture("palettes-2023-Shared.json"))
        #expect(palettes2023.map(\.id) == PaletteList().palettes.map(\.id))
        #expect(palettes2023 == PaletteList().palettes)

        var list = PaletteList()
        #expect(try list.importPalettes(palettes2023) == (added: 0, skipped: 9))
        try list.rename(id: list.palettes[0].id, to: "Cars")
        let result = try list.importPalettes(palettes2021)
        #expect(result == (added: 1, skipped: 8))
        #expect(list.palettes.count == 10)
        #expect(list.palettes.last?.name == "Vehicles")
        #expect(Set(list.palettes.map(\.id)).count == 10)
    }

    @Test func badPaletteFilesAreRefusedWithThePath() throws {
        let cases: [(String, String)] = [
            (#"{"name":"x"}"#, ""),
            (#"[{"name":"x","emojis":"😀"}]"#, "[0].id"),
            (#"[{"name":"","emojis":"😀","id":1}]"#, "[0].name"),
            (#"[{"name":"x","emojis":5,"id":1}]"#, "[0].emojis"),
            (#"[{"name":"x","emojis":"😀","id":"not-a-uuid"}]"#, "[0].id"),
        ]
        for (json, path) in cases {
            let error = #expect(throws: EmojiArtError.self) { try PaletteFile.read(Array(json.utf8)) }
            #expect((error?.path ?? "") == path, "\(json): \(String(describing: error))")
        }
    }
}
