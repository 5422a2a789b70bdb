import EmojiArtKit
import Foundation

/// Where each user's palettes live (in local mode, the local user's: ``LocalUser/id``).
public protocol PaletteStore: Sendable {
    /// `owner`'s palettes in order, or nil if they have never been saved (their first start).
    func loadPalettes(owner: UUID) async throws -> [Palette]?

    /// Replaces `owner`'s palettes; on a shared store, other servers hear ``StoreChange/palettes``.
    func savePalettes(_ palettes: [Palette], owner: UUID) async throws
}

/// The one user of local mode: every document and palette belongs to it until accounts are on
/// and the first admin takes them over.
public enum LocalUser {
    /// The nil UUID: the same in every database, and never a real user's id.
    public static let id = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
    public static let name = "local"
}
