import Foundation

/// Reads the palette lists the original apps stored: a JSON array of
/// `{"name", "emojis", "id"}` where `id` is an integer (2021) or a UUID string (2023).
public enum PaletteFile {
    /// Palette files are small; anything over 1 MiB is not one.
    public static let maximumBytes = 1024 * 1024

    /// The palettes in the file, in file order. 2021 integer ids become new UUIDs.
    public static func read(_ bytes: [UInt8]) throws -> [Palette] {
        guard bytes.count <= maximumBytes else {
            throw EmojiArtError(.tooLarge, "a palette file is at most \(maximumBytes) bytes.")
        }
        let root = JSONField(try JSONParser.parse(bytes))
        return try root.elements().map { field in
            let name = try field.required("name").string()
            try Palette.validateName(name, path: field.path + ".name")
            let idField = try field.required("id")
            let id: UUID
            switch idField.value {
            case .string(let text):
                guard let uuid = UUID(uuidString: text) else {
                    throw idField.failure("\"\(text.prefix(60))\" is not a UUID.")
                }
                id = uuid
            default:
                _ = try idField.integer()
                id = UUID()
            }
            return Palette(id: id, name: name, emojis: try field.required("emojis").string())
        }
    }

    /// `palettes` as a palette file in the 2023 form (`id` a UUID string), which ``read(_:)``
    /// and both original apps read back.
    public static func write(_ palettes: [Palette]) -> [UInt8] {
        var writer = JSONWriter(reservingCapacity: 64 + palettes.count * 128)
        writer.raw("[")
        for (index, palette) in palettes.enumerated() {
            writer.raw(index == 0 ? "\n  {" : ",\n  {")
            writer.key("name")
            writer.string(palette.name)
            writer.raw(", ")
            writer.key("emojis")
            writer.string(palette.emojis)
            writer.raw(", ")
            writer.key("id")
            writer.string(palette.id.uuidString)
            writer.raw("}")
        }
        writer.raw(palettes.isEmpty ? "]\n" : "\n]\n")
        return writer.bytes
    }
}
