import Foundation

/// What is drawn behind the emojis, centred at the origin.
public enum Background: Hashable, Sendable {
    /// A plain white canvas.
    case none
    /// An http(s) image address, fetched by whoever shows the document.
    case url(URL)
    /// Image bytes carried in the document itself, with their MIME type (`image/…`).
    case image(data: Data, mimeType: String)

    /// The action-name-free, one-line description used by `emojiart info` and errors.
    public var summary: String {
        switch self {
        case .none: "none"
        case .url(let url): url.absoluteString
        case .image(let data, let mimeType): "embedded \(mimeType) image, \(data.count) bytes"
        }
    }
}

extension Background {
    /// A background from the text users type or drop: an http(s) URL or a `data:image/…` URL.
    ///
    /// ```swift
    /// let background = try Background(parsing: "https://example.com/cat.png")
    /// ```
    public init(parsing text: String, path: String = "background") throws {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if trimmed.prefix(5).lowercased() == "data:" {
            let dataURL = try DataURL(parsing: trimmed, path: path)
            self = .image(data: dataURL.data, mimeType: dataURL.mimeType)
        } else {
            self = .url(try Background.validatedWebURL(trimmed, path: path))
        }
    }

    /// Throws unless the background is within ``DocumentLimits``.
    public func validate(path: String = "background") throws {
        switch self {
        case .none:
            return
        case .url(let url):
            _ = try Background.validatedWebURL(url.absoluteString, path: path)
        case .image(let data, let mimeType):
            try Background.validateImage(data: data, mimeType: mimeType, path: path)
        }
    }

    static func validatedWebURL(_ text: String, path: String) throws -> URL {
        guard text.utf8.count <= DocumentLimits.maximumURLLength else {
            throw EmojiArtError(
                .tooLarge, "the URL is longer than \(DocumentLimits.maximumURLLength) bytes.", path: path)
        }
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(),
            scheme == "http" || scheme == "https", let host = url.host, !host.isEmpty
        else {
            throw EmojiArtError(
                .invalidBackground,
                "\"\(text.prefix(100))\" is not a background: use an http(s) image URL or a data:image/… URL.",
                path: path)
        }
        return url
    }

    static func validateImage(data: Data, mimeType: String, path: String) throws {
        guard !data.isEmpty else {
            throw EmojiArtError(.invalidBackground, "the embedded image is empty.", path: path)
        }
        guard data.count <= DocumentLimits.maximumImageBytes else {
            throw EmojiArtError(
                .tooLarge,
                "the embedded image is \(data.count) bytes; the limit is \(DocumentLimits.maximumImageBytes).",
                path: path)
        }
        guard DataURL.isImageMIMEType(mimeType) else {
            throw EmojiArtError(
                .invalidBackground, "\"\(mimeType.prefix(100))\" is not an image MIME type (image/…).",
                path: path)
        }
    }
}
