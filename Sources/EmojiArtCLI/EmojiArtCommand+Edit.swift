import ArgumentParser
import EmojiArtImaging
import EmojiArtKit
import Foundation

extension EmojiArtCommand {
    struct AddEmoji: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add-emoji",
            abstract: "Add an emoji to a document.",
            discussion: "Positions are document points from the canvas centre, y up: --at 0,100 is above the centre.")

        @Argument(help: "The document to change; it keeps its format.")
        var file: String

        @Argument(help: "Exactly one emoji, e.g. 🚚 or 👍🏽.")
        var emoji: String

        @Option(parsing: .unconditional, help: ArgumentHelp("Where its centre goes, as X,Y.", valueName: "x,y"))
        var at: Point

        @Option(help: "Its size in points, 1...1024.")
        var size = 40

        func run() throws {
            try change(file) { document in
                try document.apply(.addEmoji(text: emoji, position: at, size: size))
                return "Added \(emoji) (id \(document.nextEmojiID - 1)) at \(at), size \(size), to \(file)."
            }
        }
    }

    struct SetBackground: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "set-background",
            abstract: "Set a document's background to a URL, an image file, or none.")

        @Argument(help: "The document to change; it keeps its format.")
        var file: String

        @Argument(help: "An http(s) image URL (or a data:image/… URL).")
        var url: String?

        @Option(help: "Embed this PNG, JPEG, GIF or WebP file in the document.")
        var image: String?

        @Flag(help: "Remove the background.")
        var none = false

        func validate() throws {
            let choices = [url != nil, image != nil, none].filter { $0 }.count
            guard choices == 1 else {
                throw ValidationError("Give exactly one of: a URL, --image PATH, or --none.")
            }
        }

        func run() throws {
            let background: Background
            if let url {
                background = try Background(parsing: url, path: "")
            } else if let image {
                let data = Data(try DocumentFile.readBytes(image, limit: DocumentLimits.maximumImageBytes))
                let info: ImageInfo
                do {
                    info = try ImageDecoder.decode(data)
                } catch let error as EmojiArtError {
                    throw FileError(path: image, reason: error.message)
                }
                background = .image(data: data, mimeType: info.mimeType)
            } else {
                background = .none
            }
            try change(file) { document in
                try document.apply(.setBackground(background))
                return "Set the background of \(file) to \(background.summary)."
            }
        }
    }
}

/// Reads a document, applies a change, and writes it back in the format it was read in.
///
/// Refuses files whose reading dropped something (say, an unusable background): writing them
/// back would lose it silently. `emojiart convert` writes such files knowingly.
private func change(_ file: String, _ body: (inout EmojiArtDocument) throws -> String) throws {
    let decoded = try DocumentFile.read(file)
    if decoded.isPicture {
        throw FileError(
            path: file,
            reason:
                "not changed: this is a picture of a document. Open it as a document first: `emojiart convert \(file) copy.emojiart --to native`."
        )
    }
    if let note = decoded.notes.first {
        throw FileError(
            path: file,
            reason:
                "not changed, because saving it would drop data this version can't keep: \(note) Use `emojiart convert` to write a copy without it."
        )
    }
    var document = decoded.document
    let message: String
    do {
        message = try body(&document)
    } catch let error as EmojiArtError {
        throw FileError(path: file, reason: error.description)
    }
    try DocumentFile.write(document, to: file, as: decoded.format, implicitTitle: DocumentFile.title(forFileAt: file))
    say(message)
}
