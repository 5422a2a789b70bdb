/// The one error type of the core: a machine-readable ``Code``, the path of the offending field
/// when there is one, and a message that says what went wrong and how to remedy it.
///
/// The server maps ``Code`` to HTTP statuses at its edge; the CLI prints ``description``.
public struct EmojiArtError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What kind of problem this is, stable enough to switch on and to send over the wire.
    public enum Code: String, Sendable, Codable, CaseIterable {
        /// An emoji's text is not exactly one emoji.
        case invalidEmoji = "invalid_emoji"
        /// A number (position, size, id, count, scale) is outside its documented bounds.
        case outOfRange = "out_of_range"
        /// An edit names an emoji id the document does not have.
        case unknownEmoji = "unknown_emoji"
        /// A background is not an http(s) URL nor an embedded image.
        case invalidBackground = "invalid_background"
        /// A title or palette name is empty, too long, or has control characters.
        case invalidText = "invalid_text"
        /// The bytes are not well-formed JSON.
        case malformedJSON = "malformed_json"
        /// The JSON is well formed but a field is missing or has the wrong type.
        case invalidFile = "invalid_file"
        /// A native file written by a newer EmojiArt.
        case unsupportedVersion = "unsupported_version"
        /// The last palette cannot be deleted.
        case lastPalette = "last_palette"
        /// A palette id that does not exist.
        case unknownPalette = "unknown_palette"
        /// Input larger than the documented limit.
        case tooLarge = "too_large"
        /// An edit would change a locked emoji; unlock it first.
        case locked = "locked"
    }

    public var code: Code
    /// The path of the bad field, e.g. `emojis[3].position.x`, when the error is about one.
    public var path: String?
    /// What went wrong and, where it helps, what to do about it.
    public var message: String

    public init(_ code: Code, _ message: String, path: String? = nil) {
        self.code = code
        self.message = message
        self.path = path
    }

    public var description: String {
        guard let path, !path.isEmpty else { return message }
        return "\(path): \(message)"
    }
}
