import ArgumentParser
import EmojiArtKit
import EmojiArtMosaic
import Foundation

extension EmojiArtCommand {
    struct EmojiCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "emoji",
            abstract: "Find emojis in the catalogue (Unicode's emojis with CLDR's names and keywords).",
            subcommands: [Search.self, Info.self, Signatures.self])

        struct Signatures: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Measure every catalogue emoji's colour signature, as mosaics use them.",
                discussion: """
                    Draws each emoji (tone variants and flags too) with the PNG export's renderer \
                    and prints the table EmojiArtMosaic carries (docs/FORMATS.md, "Emoji colour \
                    signatures"). scripts/generate-emoji-signatures runs it.
                    """)
            @Option(help: "The font the table is measured from, as the table's source says it.")
            var source: String = "Noto Color Emoji"
            @Option(name: .shortAndLong, help: "The file to write (default: standard output).") var output: String?

            func run() async throws {
                let catalogue = try EmojiSearchCommand.catalogue()
                var signatures: [EmojiSignature] = []
                for entry in catalogue.entries where catalogue.groups[entry.group] != EmojiCatalogue.componentGroup {
                    for text in [entry.emoji] + entry.variants { signatures.append(try EmojiSignature.measure(text)) }
                }
                let table = EmojiSignatureTable.json(source: source, signatures: signatures)
                if let output {
                    try DocumentFile.writeAtomically(Data(table.utf8), to: output)
                    warn("Wrote \(output): \(signatures.count) emojis.")
                } else {
                    say(table)
                }
            }
        }

        struct Search: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Print the emojis a word finds, best first, as the editor's picker ranks them.",
                discussion: "One per line: the emoji, its name, its group, its keywords.")
            @Argument(help: "What to look for: a word (fox, Fuchs, renard), several, or an emoji.") var words: [String]
            @Option(help: "The names' language (de, fr, zh-Hant, …); English is always searched too.")
            var lang: String = "en"
            @Option(help: "At most this many results.") var limit: Int = 20

            func validate() throws {
                guard (1...EmojiSearchCommand.maximumLimit).contains(limit) else {
                    throw ValidationError("--limit is 1 to \(EmojiSearchCommand.maximumLimit).")
                }
            }

            func run() async throws {
                let catalogue = try EmojiSearchCommand.catalogue()
                let query = words.joined(separator: " ")
                try EmojiSearchCommand.check(query)
                let language = catalogue.language(for: [lang])
                if language != lang.replacingOccurrences(of: "_", with: "-"), !lang.lowercased().hasPrefix(language) {
                    warn("No names in \(lang); searching English.")
                }
                let results = try catalogue.search(in: language).search(query, limit: limit)
                guard !results.isEmpty else {
                    warn("No emoji matches \"\(query)\".")
                    throw ExitCode(1)
                }
                for result in results {
                    say(
                        "\(result.emoji)  \(result.name)  (\(result.group))  \(result.keywords.joined(separator: ", "))"
                    )
                }
            }
        }

        struct Info: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Print an emoji's name, group, keywords and skin-tone variants.")
            @Argument(help: "One emoji, e.g. 🦊 or 👋🏽.") var emoji: String
            @Option(help: "The names' language (de, fr, …).") var lang: String = "en"

            func run() async throws {
                let catalogue = try EmojiSearchCommand.catalogue()
                guard let entry = catalogue.entry(for: emoji) else {
                    warn("\(emoji) is not an emoji of the catalogue (Unicode \(catalogue.unicodeVersion)).")
                    throw ExitCode(1)
                }
                let language = catalogue.language(for: [lang])
                let table = try catalogue.annotations(language)
                let english = try catalogue.annotations("en")
                say("\(emoji)  \(catalogue.name(of: emoji, language: language) ?? entry.unicodeName)")
                if emoji != entry.emoji {
                    say("variant of: \(entry.emoji)  \(catalogue.name(of: entry.emoji, language: language) ?? "")")
                }
                say("unicode name: \(entry.unicodeName)")
                say("group: \(catalogue.groups[entry.group]) › \(entry.subgroup)")
                let keywords = table.keywords[entry.emoji] ?? english.keywords[entry.emoji] ?? []
                say("keywords: \(keywords.isEmpty ? "none" : keywords.joined(separator: ", "))")
                say(
                    "code points: \(emoji.unicodeScalars.map { String($0.value, radix: 16, uppercase: true) }.joined(separator: " "))"
                )
                if !entry.variants.isEmpty {
                    say("variants (\(entry.variants.count)):")
                    for variant in entry.variants {
                        say("  \(variant)  \(catalogue.name(of: variant, language: language) ?? "")")
                    }
                }
            }
        }
    }
}

/// What `emoji search` and `palettes add --search` share.
enum EmojiSearchCommand {
    static let maximumLimit = 200

    static func catalogue() throws -> EmojiCatalogue {
        guard let catalogue = EmojiCatalogue.bundled else {
            warn("The emoji catalogue is missing from this installation (\(EmojiCatalogue.resourceDirectory.path)).")
            throw ExitCode(1)
        }
        return catalogue
    }

    static func check(_ query: String) throws {
        do {
            try EmojiSearch.validate(query)
        } catch let error as EmojiArtError {
            throw ValidationError(error.message)
        }
    }
}
