import ArgumentParser
import EmojiArtKit
import EmojiArtLive
import EmojiArtServer
import EmojiArtStore
import Foundation

extension EmojiArtCommand {
    /// `emojiart palettes …`: the palettes the server's editor shows, in the same database.
    struct Palettes: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List and change the palettes shared by every document.",
            discussion: """
                Works on the database `emojiart serve` uses (the same --data folder and \
                $EMOJIART_DATA, or the same --database and $EMOJIART_DATABASE_URL), also while the \
                server runs: open editors show the change within about a second. A palette is \
                named by its name or its id. In accounts mode each user has palettes of their own: \
                --user NAME works on theirs.
                """,
            subcommands: [List.self, Add.self, Rename.self, Remove.self, Import.self])

        struct List: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Print every palette, in order.")
            @OptionGroup var store: StoreOptions
            @OptionGroup var owner: PaletteOwner
            @Flag(help: "Print the palettes as JSON (the 2023 app's palette format, which `import` reads).")
            var json = false

            func run() async throws {
                let palettes = try await store.library(of: owner.user).palettes()
                if json {
                    let encoder = JSONEncoder()
                    encoder.outputFormatting = [.prettyPrinted, .withoutEscapingSlashes]
                    say(String(decoding: try encoder.encode(palettes), as: UTF8.self))
                    return
                }
                let width = palettes.map(\.name.count).max() ?? 0
                let numberWidth = "\(palettes.count).".count
                for (index, palette) in palettes.enumerated() {
                    let name = palette.name.padding(toLength: width, withPad: " ", startingAt: 0)
                    let number = "\(index + 1).".padding(toLength: numberWidth, withPad: " ", startingAt: 0)
                    say("\(number) \(name)  \(palette.emojis)  \(palette.id)")
                }
            }
        }

        struct Add: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Add a palette (only emoji are kept, duplicates dropped).")
            @OptionGroup var store: StoreOptions
            @OptionGroup var owner: PaletteOwner
            @Argument(help: "The new palette's name.") var name: String
            @Argument(help: "Its emojis.") var emojis: String = ""
            @Option(help: "Its position, 1 for the first (default: the end).") var at: Int?
            @Option(help: "Fill it with the emojis a search finds, e.g. \"fruit\" (after any given).")
            var search: String?
            @Option(help: "With --search: the names' language (de, fr, …).") var lang: String = "en"
            @Option(help: "With --search: at most this many emojis.") var limit: Int = 24

            func validate() throws {
                guard (1...EmojiSearchCommand.maximumLimit).contains(limit) else {
                    throw ValidationError("--limit is 1 to \(EmojiSearchCommand.maximumLimit).")
                }
                if let search { try EmojiSearchCommand.check(search) }
            }

            func run() async throws {
                var emojis = emojis
                if let search {
                    let catalogue = try EmojiSearchCommand.catalogue()
                    let found = try catalogue.search(in: catalogue.language(for: [lang])).search(search, limit: limit)
                    guard !found.isEmpty else {
                        warn("No emoji matches \"\(search)\"; no palette added.")
                        throw ExitCode(1)
                    }
                    emojis += found.map(\.emoji).joined()
                }
                let palette = Palette(name: name, emojis: emojis)
                let index = at.map { $0 - 1 }
                let added = try await store.library(of: owner.user).update { try $0.insert(palette, at: index) }
                say("Added \(added.name) \(added.emojis) (\(added.id)).")
            }
        }

        struct Rename: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Rename a palette.")
            @OptionGroup var store: StoreOptions
            @OptionGroup var owner: PaletteOwner
            @Argument(help: "The palette's name or id.") var palette: String
            @Argument(help: "Its new name.") var newName: String

            func run() async throws {
                let library = try await store.library(of: owner.user)
                let id = try await find(palette, in: library)
                try await library.update { try $0.rename(id: id, to: newName) }
                say("Renamed \(palette) to \(newName).")
            }
        }

        struct Remove: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Delete a palette (the last one can never be deleted).")
            @OptionGroup var store: StoreOptions
            @OptionGroup var owner: PaletteOwner
            @Argument(help: "The palette's name or id.") var palette: String

            func run() async throws {
                let library = try await store.library(of: owner.user)
                let id = try await find(palette, in: library)
                try await library.update { try $0.remove(id: id) }
                say("Removed \(palette).")
            }
        }

        struct Import: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Add the palettes in a palette file (the original apps' stored palette JSON).")
            @OptionGroup var store: StoreOptions
            @OptionGroup var owner: PaletteOwner
            @Argument(help: "The palette file.") var file: String

            func run() async throws {
                let imported = try PaletteFile.read(DocumentFile.readBytes(file, limit: PaletteFile.maximumBytes))
                let (added, skipped) = try await store.library(of: owner.user).update {
                    try $0.importPalettes(imported)
                }
                say(
                    "Imported \(added) \(added == 1 ? "palette" : "palettes")\(skipped > 0 ? "; \(skipped) already there" : "")."
                )
            }
        }
    }
}

/// The id of the palette named `nameOrID` (an exact name, or an id).
private func find(_ nameOrID: String, in library: PaletteLibrary) async throws -> UUID {
    let palettes = try await library.palettes()
    if let id = UUID(uuidString: nameOrID), palettes.contains(where: { $0.id == id }) { return id }
    let named = palettes.filter { $0.name == nameOrID }
    guard let match = named.first else {
        throw EmojiArtError(.unknownPalette, "there is no palette named \"\(nameOrID)\"; see `emojiart palettes list`.")
    }
    guard named.count == 1 else {
        throw EmojiArtError(.unknownPalette, "\(named.count) palettes are named \"\(nameOrID)\"; use its id instead.")
    }
    return match.id
}
