import EmojiArtKit
import EmojiArtLive
import Foundation
import Hummingbird

/// `/api/palettes`: the requester's palettes, shared by every document and window of theirs.
/// Someone here only through a share link sees the built-ins and changes nothing.
struct PalettesController {
    let palettes: PaletteLibraries
    /// The built-ins, for visitors without an account.
    let builtIns: PaletteLibrary

    struct PaletteListBody: ResponseEncodable {
        var palettes: [Palette]
    }

    struct PaletteBody: ResponseEncodable {
        var id: UUID
        var name: String
        var emojis: String

        init(_ palette: Palette) {
            id = palette.id
            name = palette.name
            emojis = palette.emojis
        }
    }

    struct CreateRequest: Decodable {
        /// Made by the client, so that sending the same request again (its answer lost, a palette
        /// made offline: docs/OFFLINE.md) makes nothing more; a new one when absent.
        var id: UUID?
        var name: String
        var emojis: String?
        var index: Int?
    }

    struct UpdateRequest: Decodable {
        var name: String?
        var addEmojis: String?
        var removeEmoji: String?
        var index: Int?
    }

    struct ImportResultBody: ResponseEncodable {
        var added: Int
        var skipped: Int
        var palettes: [Palette]
    }

    func addRoutes(to group: RouterGroup<AppRequestContext>) {
        group.get(use: list)
        group.post(use: create)
        group.post("import", use: importPalettes)
        group.patch(":id", use: update)
        group.delete(":id", use: delete)
    }

    @Sendable func list(_ request: Request, context: AppRequestContext) async throws -> PaletteListBody {
        PaletteListBody(palettes: try await readable(context).palettes())
    }

    /// The requester's palettes to read: theirs, or the built-ins for a visitor.
    func readable(_ context: AppRequestContext) async throws -> PaletteLibrary {
        guard let owner = context.access.requester.userID else { return builtIns }
        return await palettes.library(for: owner)
    }

    /// The requester's palettes to change: only their own.
    func writable(_ context: AppRequestContext) async throws -> PaletteLibrary {
        await palettes.library(for: try context.access.account(for: "keep palettes of your own"))
    }

    @Sendable func create(_ request: Request, context: AppRequestContext) async throws
        -> EditedResponse<PaletteBody>
    {
        let palettes = try await writable(context)
        guard let body = try await decode(CreateRequest.self, from: request) else {
            throw APIError.badRequest("Send {\"name\": \"…\"}.")
        }
        try Self.checkIndex(body.index)
        let made = try await palettes.update { list -> (Palette, Bool) in
            // The same id again: that palette, as it is now, changing nothing (a repeat).
            if let id = body.id, let existing = list[id: id] { return (existing, false) }
            let palette = Palette(id: body.id ?? UUID(), name: body.name, emojis: body.emojis ?? "")
            return (try list.insert(palette, at: body.index), true)
        }
        return EditedResponse(status: made.1 ? .created : .ok, response: PaletteBody(made.0))
    }

    /// A palette's place in the list is 0 or more (past the end means the end).
    private static func checkIndex(_ index: Int?) throws {
        if let index, index < 0 { throw APIError.badRequest("\"index\" is a place in the list: 0 or more.") }
    }

    @Sendable func update(_ request: Request, context: AppRequestContext) async throws -> PaletteBody {
        let palettes = try await writable(context)
        let id = try paletteID(context)
        guard let body = try await decode(UpdateRequest.self, from: request) else {
            throw APIError.badRequest("Send the fields to change.")
        }
        try Self.checkIndex(body.index)
        let palette = try await palettes.update { list -> Palette in
            if let name = body.name { try list.rename(id: id, to: name) }
            if let added = body.addEmojis { try list.addEmojis(added, to: id) }
            if let removed = body.removeEmoji {
                guard removed.count == 1, let emoji = removed.first else {
                    throw APIError.badRequest("\"removeEmoji\" must be one emoji.")
                }
                try list.removeEmoji(emoji, from: id)
            }
            if let index = body.index { try list.move(id: id, to: index) }
            guard let palette = list[id: id] else {
                throw EmojiArtError(.unknownPalette, "there is no palette with id \(id).")
            }
            return palette
        }
        return PaletteBody(palette)
    }

    @Sendable func delete(_ request: Request, context: AppRequestContext) async throws -> Response {
        let palettes = try await writable(context)
        let id = try paletteID(context)
        try await palettes.update { try $0.remove(id: id) }
        return Response(status: .noContent)
    }

    @Sendable func importPalettes(_ request: Request, context: AppRequestContext) async throws -> ImportResultBody {
        let palettes = try await writable(context)
        let imported = try PaletteFile.read(try await collect(request, limit: PaletteFile.maximumBytes))
        let (added, skipped) = try await palettes.update { try $0.importPalettes(imported) }
        return ImportResultBody(added: added, skipped: skipped, palettes: try await palettes.palettes())
    }

    private func paletteID(_ context: AppRequestContext) throws -> UUID {
        guard let text = context.parameters.get("id"), let id = UUID(uuidString: text) else {
            throw APIError.notFound("There is no palette with that id.")
        }
        return id
    }
}
