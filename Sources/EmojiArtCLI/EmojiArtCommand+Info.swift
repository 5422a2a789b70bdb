import ArgumentParser
import EmojiArtKit
import Foundation

extension EmojiArtCommand {
    struct Info: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Describe a document: format, title, background, emoji count and bounds.",
            discussion: "Bounds enclose every emoji's size × size square, in document points with y up.")

        @Argument(help: "The document to describe.")
        var file: String

        @Flag(help: "Print JSON instead of text.")
        var json = false

        func run() throws {
            let decoded = try DocumentFile.read(file)
            let report = DocumentReport(file: file, decoded: decoded)
            say(json ? try report.json() : report.text)
        }
    }
}

/// What `emojiart info` reports about a document.
struct DocumentReport: Codable, Equatable {
    struct BackgroundReport: Codable, Equatable {
        var kind: String
        var url: String?
        var mimeType: String?
        var bytes: Int?
    }

    var file: String
    var format: String
    var title: String
    var background: BackgroundReport
    var emojiCount: Int
    var bounds: Bounds?
    var nextEmojiId: Int
    var notes: [String]

    init(file: String, decoded: DecodedDocument) {
        let document = decoded.document
        self.file = file
        self.format = decoded.format.rawValue
        self.title = document.title
        switch document.background {
        case .none: background = BackgroundReport(kind: "none")
        case .url(let url): background = BackgroundReport(kind: "url", url: url.absoluteString)
        case .image(let data, let mimeType):
            background = BackgroundReport(kind: "image", mimeType: mimeType, bytes: data.count)
        }
        self.emojiCount = document.emojis.count
        self.bounds = document.emojiBounds
        self.nextEmojiId = document.nextEmojiID
        self.notes = decoded.notes
    }

    var text: String {
        let formatName = DocumentFormat(rawValue: format)?.displayName ?? format
        let backgroundText: String
        switch background.kind {
        case "url": backgroundText = background.url ?? ""
        case "image": backgroundText = "embedded \(background.mimeType ?? "") image, \(background.bytes ?? 0) bytes"
        default: backgroundText = "none"
        }
        let boundsText =
            bounds.map {
                "x \($0.minX)…\($0.maxX), y \($0.minY)…\($0.maxY) (\($0.width) × \($0.height) points)"
            } ?? "none (no emojis)"
        var lines = [
            "File:        \(file)",
            "Format:      \(formatName)",
            "Title:       \(title)",
            "Background:  \(backgroundText)",
            "Emojis:      \(emojiCount)",
            "Bounds:      \(boundsText)",
        ]
        lines += notes.map { "Note:        \($0)" }
        return lines.joined(separator: "\n")
    }

    func json() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(self), as: UTF8.self)
    }
}
