import ArgumentParser
import EmojiArtKit
import Foundation

extension EmojiArtCommand {
    struct New: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create an empty document.")

        @Argument(help: "The file to create, e.g. party.emojiart.")
        var file: String

        @Option(help: "The document's title (default: the file's name).")
        var title: String?

        @Option(help: "The format to write: native, cs193p-2023 or cs193p-2021.")
        var format: DocumentFormat = .native

        @Flag(help: "Replace the file if it exists.")
        var force = false

        func validate() throws {
            if let title {
                do {
                    _ = try EmojiArtDocument(title: title)
                } catch let error as EmojiArtError {
                    throw ValidationError("--title: \(error.message)")
                }
            }
        }

        func run() throws {
            guard force || !FileManager.default.fileExists(atPath: file) else {
                throw FileError(path: file, reason: "already exists; use --force to replace it.")
            }
            let document = try EmojiArtDocument(title: title ?? DocumentFile.title(forFileAt: file))
            try DocumentFile.write(document, to: file, as: format)
            say("Created \(file) (\(format.displayName)), titled \"\(document.title)\".")
        }
    }

    struct Convert: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Convert a document to another format.",
            discussion:
                "Says on standard error what the target format cannot hold (titles in the CS193P formats, embedded images in 2023)."
        )

        @Argument(help: "The document to read (any format).")
        var input: String

        @Argument(help: "The file to write.")
        var output: String

        @Option(help: "The format to write: native, cs193p-2023 or cs193p-2021.")
        var to: DocumentFormat

        func run() throws {
            let decoded = try DocumentFile.read(input)
            for note in decoded.notes { warn("note: \(note)") }
            try DocumentFile.write(
                decoded.document, to: output, as: to, implicitTitle: DocumentFile.title(forFileAt: input))
            say("Converted \(input) (\(decoded.format.displayName)) to \(output) (\(to.displayName)).")
        }
    }

    struct Validate: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check that documents open, one verdict per file.",
            discussion: "Exits with status 1 if any file is invalid.")

        @Argument(help: "The documents to check.")
        var files: [String]

        func validate() throws {
            guard !files.isEmpty else { throw ValidationError("Name at least one file to validate.") }
        }

        func run() throws {
            var failures = 0
            for file in files {
                do {
                    let decoded = try DocumentFile.read(file)
                    let count = decoded.document.emojis.count
                    say("ok       \(file) (\(decoded.format.rawValue), \(count) \(count == 1 ? "emoji" : "emojis"))")
                    for note in decoded.notes { say("         note: \(note)") }
                } catch {
                    failures += 1
                    say("invalid  \(error)")
                }
            }
            if failures > 0 {
                warn("\(failures) of \(files.count) \(files.count == 1 ? "file is" : "files are") invalid.")
                throw ExitCode(1)
            }
        }
    }
}
