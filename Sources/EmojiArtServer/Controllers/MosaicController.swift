import EmojiArtImaging
import EmojiArtKit
import EmojiArtLive
import EmojiArtMosaic
import EmojiArtStore
import EmojiArtWire
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import Synchronization

/// `/api/documents/{id}/mosaic`: a document's background picture as a grid of emojis
/// (EmojiArtMosaic), added as one undoable edit ("Make Mosaic"), or drawn as a preview.
struct MosaicController {
    let library: DocumentLibrary
    let access: DocumentAccess
    let pictures: DocumentPictures
    let palettes: PaletteLibraries
    let builtInPalettes: PaletteLibrary
    /// Mosaics are drawn one at a time (each takes a core for up to a second or so); a few more
    /// wait, more than that are refused (503).
    let turns = TurnQueue()
    /// The last few mosaics made, so the one a preview showed is applied without making it again.
    let recent = RecentMosaics()

    /// Mosaics by what made them: the picture, the grid and the choice of emojis.
    final class RecentMosaics: Sendable {
        static let capacity = 4
        private let entries = Mutex<[(key: String, mosaic: Mosaic)]>([])

        func mosaic(_ key: String) -> Mosaic? {
            entries.withLock { entries in entries.first { $0.key == key }?.mosaic }
        }

        func keep(_ mosaic: Mosaic, as key: String) {
            entries.withLock { entries in
                entries.removeAll { $0.key == key }
                entries.append((key, mosaic))
                if entries.count > Self.capacity { entries.removeFirst() }
            }
        }
    }

    /// What `POST` sends (and `GET` spells as query parameters).
    struct MosaicRequest: Codable, Sendable {
        var columns: Int
        var emojis: String?
        var dither: Bool?
        var fit: String?
        var region: MosaicGrid.Region?
        var replace: Bool?

        /// The request with every default spelled out (docs/API.md, "Mosaics"): one asked with
        /// `"dither": false` is the one asked without it.
        var withDefaults: MosaicRequest {
            MosaicRequest(
                columns: columns, emojis: emojis ?? "all", dither: dither ?? false, fit: fit ?? "background",
                region: region, replace: replace ?? false)
        }
    }

    /// The most pixels a picture a mosaic is made of may have (decoded, it takes 4 bytes each).
    static let maximumPicturePixels = 40_000_000

    func addRoutes(to group: RouterGroup<AppRequestContext>) {
        group.post(":id/mosaic", use: post)
        group.get(":id/mosaic", use: get)
    }

    @Sendable func get(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (id, _) = try await access.require(.view, context)
        let query = request.uri.queryParameters
        guard let columnsText = query.get("columns"), let columns = Int(columnsText) else {
            throw APIError.badRequest("Give the mosaic's columns: ?columns=80 (10 to 300).")
        }
        var region: MosaicGrid.Region?
        if let text = query.get("region") {
            let parts = text.split(separator: ",", omittingEmptySubsequences: false).map { Int($0) }
            guard parts.count == 4, let x = parts[0], let y = parts[1], let width = parts[2], let height = parts[3]
            else { throw APIError.badRequest("region is x,y,width,height in whole pixels of the picture.") }
            region = MosaicGrid.Region(x: x, y: y, width: width, height: height)
        }
        let dither = query.get("dither")
        guard dither == nil || ["0", "1", "true", "false"].contains(dither!) else {
            throw APIError.badRequest("dither is 1 or 0.")
        }
        let body = MosaicRequest(
            columns: columns, emojis: query.get("emojis"), dither: dither == "1" || dither == "true",
            fit: query.get("fit"), region: region, replace: false)
        return try await preview(id, body, context)
    }

    @Sendable func post(_ request: Request, context: AppRequestContext) async throws -> Response {
        let previewing = ["1", "true"].contains(request.uri.queryParameters.get("preview") ?? "0")
        let (id, grant) = try await access.require(previewing ? .view : .edit, context)
        let key = try IdempotencyKey(request, context, .mosaic)
        guard let body = try await decode(MosaicRequest.self, from: request) else {
            throw APIError.badRequest("Send {\"columns\": 80, \"emojis\": \"all\", …} (docs/API.md, \"Mosaics\").")
        }
        if previewing { return try await preview(id, body, context) }
        // What was asked, whatever the order of its fields, their spacing or defaults spelled out.
        let requestID = try key.map { key in
            let encoder = JSONEncoder()
            encoder.outputFormatting = .sortedKeys
            return key.requestID(asking: try encoder.encode(body.withDefaults))
        }
        // A repeat of a mosaic that was placed is answered before one is made again (a second or
        // more of work, and the background may have changed since).
        if let requestID, let done = try await library.document(id, { try await $0.stateIfCommitted(requestID) }) {
            return try DocumentStateBody(done, role: grant.role).response(from: request, context: context)
        }
        let (state, mosaic, _) = try await make(id, body, context, drawing: false)
        let replace = body.replace ?? false
        let done = try await library.document(id) { document in
            // Placed on the document as it is now, which may have changed while the mosaic was made.
            let now = try await document.state()
            guard now.document.background == state.document.background else {
                throw LiveDocumentError.conflict(
                    currentVersion: now.version,
                    reason: "the background changed while the mosaic was made; make it again")
            }
            return try await document.perform(
                try mosaic.edits(for: now.document, replace: replace), baseVersion: now.version,
                requestID: requestID, author: context.author)
        }
        return try DocumentStateBody(done, role: grant.role).response(from: request, context: context)
    }

    private func preview(_ id: UUID, _ body: MosaicRequest, _ context: AppRequestContext) async throws -> Response {
        let (_, mosaic, png) = try await make(id, body, context, drawing: true)
        var headers = HTTPFields()
        headers[.contentType] = "image/png"
        headers[.cacheControl] = "no-store"
        headers[HTTPField.Name("EmojiArt-Mosaic-Columns")!] = String(mosaic.grid.columns)
        headers[HTTPField.Name("EmojiArt-Mosaic-Rows")!] = String(mosaic.grid.rows)
        headers[HTTPField.Name("EmojiArt-Mosaic-Emojis")!] = String(mosaic.emojiCount)
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: png ?? [])))
    }

    /// The mosaic `body` asks for, of the document's background as it is now (and, `drawing`,
    /// its picture, in the same turn). Everything that can be checked without the pixels is
    /// checked first: the request's shape, the emoji set, the grid's size, the picture's.
    private func make(_ id: UUID, _ body: MosaicRequest, _ context: AppRequestContext, drawing: Bool) async throws
        -> (LiveDocumentState, Mosaic, [UInt8]?)
    {
        let fit = body.fit ?? "background"
        guard fit == "background" || fit == "region" else {
            throw APIError.badRequest("fit is \"background\" or \"region\", not \"\(fit.prefix(40))\".")
        }
        guard (fit == "region") == (body.region != nil) else {
            throw APIError.badRequest(
                fit == "region"
                    ? "fit \"region\" needs a region: {x, y, width, height}." : "a region needs fit \"region\".")
        }
        try MosaicGrid.check(columns: body.columns)
        let recipe = MosaicRecipe(
            columns: body.columns, region: body.region, emojis: try await emojis(body.emojis ?? "all", context),
            options: MosaicOptions(dither: body.dither ?? false))
        let state = try await library.document(id) { try await $0.state() }
        guard let image = try await pictures.storedImage(for: state.document.background) else {
            throw EmojiArtError(
                .invalidBackground,
                state.document.background == .none
                    ? "the document has no background picture to make a mosaic of."
                    : "the document's background picture hasn't been fetched (yet), so there is nothing to make a mosaic of.",
                path: "fit")
        }
        do {
            _ = try recipe.grid(pictureWidth: image.width, pictureHeight: image.height)
        } catch let error as EmojiArtError where error.code == .tooLarge {
            throw APIError(status: .contentTooLarge, code: "too_large", message: error.description)
        }
        guard image.width * image.height <= Self.maximumPicturePixels else {
            throw APIError(
                status: .contentTooLarge, code: "too_large",
                message:
                    "The picture has \(image.width)×\(image.height) pixels; a mosaic is made of at most \(Self.maximumPicturePixels)."
            )
        }
        guard let table = EmojiSignatureTable.bundled else {
            throw APIError.notFound("This server has no emoji signatures.")
        }
        let key = recipe.key(imageID: image.id)
        let recent = self.recent
        let data = image.data
        // One turn makes the mosaic (or finds it made) and draws its picture.
        let (mosaic, png) = try await turn { () throws -> (Mosaic, [UInt8]?) in
            let mosaic = try recent.mosaic(key) ?? recipe.make(from: try ImageDecoder.bitmap(data), table: table)
            recent.keep(mosaic, as: key)
            return (mosaic, drawing ? try mosaic.picture().png : nil)
        }
        return (state, mosaic, png)
    }

    /// The emojis of "all" (nil), "palette:<id>" (one of the requester's palettes, or a built-in
    /// for a visitor), or typed emojis.
    private func emojis(_ emojis: String, _ context: AppRequestContext) async throws -> [String]? {
        if emojis == "all" { return nil }
        if emojis.hasPrefix("palette:") {
            let id = emojis.dropFirst("palette:".count)
            let library =
                if let owner = context.access.requester.userID { await palettes.library(for: owner) } else {
                    builtInPalettes
                }
            guard
                let palette = try await library.palettes().first(where: {
                    $0.id.uuidString.lowercased() == id.lowercased()
                })
            else {
                throw EmojiArtError(.invalidEmoji, "there is no palette \(id.prefix(40)) of yours.", path: "emojis")
            }
            return try MosaicEmojiSet.parse(palette.emojis)
        }
        return try MosaicEmojiSet.parse(emojis)
    }

    private func turn<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        // A request its client gave up on while it waited (a preview overtaken by the next) is not drawn.
        guard
            let result = try await turns.withTurn(
                ["mosaic"],
                {
                    try Task.checkCancellation()
                    return try body()
                })
        else {
            throw APIError(
                status: .serviceUnavailable, code: "busy",
                message: "Too many mosaics are being made. Try again in a few seconds.", headers: [.retryAfter: "5"])
        }
        return result
    }
}
