/// The `.emojiart` file formats EmojiArt reads and writes (PRODUCT.md §1.2).
public enum DocumentFormat: String, Sendable, CaseIterable, Codable {
    /// Ours: the 2023 format plus a format marker and version, a title and embedded images.
    /// The 2023 app opens it (it ignores the keys it does not know).
    case native
    /// The original app's 2023 generation: y up, background is a URL string.
    case cs193p2023 = "cs193p-2023"
    /// The original app's 2021 generation: y down, background is `{"theURL"}`/`{"imageData"}`/`{}`.
    case cs193p2021 = "cs193p-2021"

    /// The value of the native format marker key `"format"`.
    public static let nativeMarker = "emojiart"
    /// The newest native format version this build reads and the one it writes.
    public static let nativeVersion = 1

    /// How the format is named to users.
    public var displayName: String {
        switch self {
        case .native: "EmojiArt (native, version \(DocumentFormat.nativeVersion))"
        case .cs193p2023: "CS193P EmojiArt 2023"
        case .cs193p2021: "CS193P EmojiArt 2021"
        }
    }
}

/// A document read from a file, with the format it was in and anything worth telling the user.
public struct DecodedDocument: Sendable {
    public var document: EmojiArtDocument
    public var format: DocumentFormat
    /// What was read differently from how the file had it, e.g. an unusable background URL.
    public var notes: [String]
    /// Read from a PNG picture that carries the document (``PictureDocument``).
    public var isPicture = false
}

/// A document written in a format, with what that format could not hold.
public struct EncodedDocument: Sendable {
    public var bytes: [UInt8]
    /// What the format could not hold as-is, e.g. "the 2021 format has no title".
    public var notes: [String]
}
