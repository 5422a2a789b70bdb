import EmojiArtKit
import EmojiArtLive
import EmojiArtStore
import EmojiArtWire
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// The size limits of request bodies (docs/API.md, "Limits").
enum BodyLimits {
    static let json = 64 * 1024
    static let importedFile = 25 * 1024 * 1024
    static let backgroundImage = DocumentLimits.maximumImageBytes
}

/// `/api/documents`: the document library and editing.
struct DocumentsController {
    let library: DocumentLibrary
    let access: DocumentAccess
    let pictures: DocumentPictures
    let thumbnails: ThumbnailCache

    init(library: DocumentLibrary, images: any ImageStore, access: DocumentAccess) {
        self.library = library
        self.access = access
        let pictures = DocumentPictures(store: images)
        self.pictures = pictures
        self.thumbnails = ThumbnailCache { state in try await pictures.thumbnail(state) }
    }

    func addRoutes(to group: RouterGroup<AppRequestContext>) {
        group.get(use: list)
        group.post(use: create)
        group.post("import", use: importDocument)
        group.get(":id", use: show)
        group.put(":id", use: createWithID)
        group.patch(":id", use: rename)
        group.delete(":id", use: delete)
        group.post(":id/duplicate", use: duplicate)
        group.get(":id/export", use: export)
        group.get(":id/picture", use: picture)
        group.get(":id/thumbnail", use: thumbnail)
        group.post(":id/edits", use: edit)
        group.put(":id/background", use: setBackgroundImage)
        group.post(":id/undo", use: undo)
        group.post(":id/redo", use: redo)
    }

    /// A page of the documents the requester can see — their own, those shared with them by
    /// name, and those their links open — newest change first: `?limit=N` (1–200, default 100),
    /// `?cursor=` the last page's `next`, `?q=` words the titles contain.
    @Sendable func list(_ request: Request, context: AppRequestContext) async throws -> DocumentListBody {
        let query = request.uri.queryParameters
        let owner = DocumentListCursor.owner(of: context.access)
        let limit = try QueryParameter.integer(query.get("limit"), named: "limit", in: 1...Self.listLimit) ?? 100
        let after = try query.get("cursor").map { try DocumentListCursor($0, for: owner).position }
        let words = query.get("q")?.trimmingCharacters(in: .whitespacesAndNewlines)
        if let words {
            // What a title could hold, or no title matches: refused before anything is read.
            guard words.count <= DocumentLimits.maximumTitleLength, words.utf8.count <= DocumentLimits.maximumTitleBytes
            else {
                throw APIError.badRequest("Search for at most \(DocumentLimits.maximumTitleLength) characters.")
            }
            guard !words.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
                throw APIError.badRequest("A search can't hold control characters.")
            }
        }
        let page = try await library.store.listDocuments(
            DocumentListing(
                scope: access.listingScope(context.access), titleContains: words, after: after, limit: limit))
        return DocumentListBody(page, next: page.next.map { DocumentListCursor($0).text(for: owner) })
    }

    /// The most documents one page of the list holds.
    static let listLimit = 200

    @Sendable func create(_ request: Request, context: AppRequestContext) async throws
        -> EditedResponse<DocumentStateBody>
    {
        let owner = try Self.owner(context)
        let body = try await decode(TitleRequest.self, from: request, allowEmpty: true)
        let state = try await library.create(
            try EmojiArtDocument(title: body?.title ?? EmojiArtDocument.defaultTitle), owner: owner)
        return EditedResponse(status: .created, response: DocumentStateBody(state, role: .owner))
    }

    /// `PUT /api/documents/{id}` with `{"title"?}`: creates the document under the id the client
    /// made (a document made offline, docs/OFFLINE.md) — `201` — or, when it is there already and
    /// the requester may see it, answers it as it is — `200`, nothing changed — so sending it
    /// again is harmless. A document there that the requester may not see is `404`, as ever.
    @Sendable func createWithID(_ request: Request, context: AppRequestContext) async throws
        -> EditedResponse<DocumentStateBody>
    {
        guard let text = context.parameters.get("id"), let id = UUID(uuidString: text) else {
            if !context.access.isSomeone { throw APIError.unauthorized }
            throw APIError.badRequest("A document id is a UUID, such as \(UUID()).")
        }
        let owner = try Self.owner(context)
        let body = try await decode(TitleRequest.self, from: request, allowEmpty: true)
        let document = try EmojiArtDocument(title: body?.title ?? EmojiArtDocument.defaultTitle)
        if let existing = try await existing(id, context) { return existing }
        do {
            let state = try await library.create(document, id: id, owner: owner)
            return EditedResponse(status: .created, response: DocumentStateBody(state, role: .owner))
        } catch {
            // Another request made it first (the same client, twice): the same answer as a repeat.
            guard let existing = try await existing(id, context) else { throw error }
            return existing
        }
    }

    /// The document `id` as `200` when it exists and the requester may see it; `404` when it
    /// exists and they may not; nil when there is none.
    private func existing(_ id: UUID, _ context: AppRequestContext) async throws -> EditedResponse<DocumentStateBody>? {
        guard let state = try await library.withDocument(id, { try await $0.state() }) else { return nil }
        guard let grant = try await access.grant(context.access, on: id) else {
            throw APIError.notFound("There is no document \(id).")
        }
        return EditedResponse(status: .ok, response: DocumentStateBody(state, role: grant.role))
    }

    @Sendable func show(_ request: Request, context: AppRequestContext) async throws -> DocumentStateBody {
        let (id, grant) = try await authorize(.view, context)
        return DocumentStateBody(try await state(id, request), role: grant.role)
    }

    @Sendable func rename(_ request: Request, context: AppRequestContext) async throws -> DocumentStateBody {
        let (id, grant) = try await authorize(.edit, context)
        let key = try IdempotencyKey(request, context, .rename)
        guard let title = try await decode(TitleRequest.self, from: request)?.title else {
            throw APIError.badRequest("Send {\"title\": \"…\"}.")
        }
        let requestID = key?.requestID(asking: Array(title.utf8))
        return DocumentStateBody(
            try await library.document(id) { document in
                try await document.perform(
                    [.retitle(title)], baseVersion: try await document.state().version, requestID: requestID,
                    author: context.author)
            }, role: grant.role)
    }

    @Sendable func delete(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (id, _) = try await authorize(.manage, context)
        guard try await library.delete(id) else { throw APIError.notFound("There is no document \(id).") }
        await thumbnails.remove(id)
        return Response(status: .noContent)
    }

    @Sendable func duplicate(_ request: Request, context: AppRequestContext) async throws
        -> EditedResponse<DocumentStateBody>
    {
        let (id, _) = try await authorize(.view, context)
        let owner = try Self.owner(context)
        let title = try await decode(TitleRequest.self, from: request, allowEmpty: true)?.title
        guard let state = try await library.duplicate(id, title: title, owner: owner) else {
            throw APIError.notFound("There is no document \(id).")
        }
        return EditedResponse(status: .created, response: DocumentStateBody(state, role: .owner))
    }

    @Sendable func importDocument(_ request: Request, context: AppRequestContext) async throws
        -> EditedResponse<ImportBody>
    {
        let owner = try Self.owner(context)
        let bytes = try await collect(request, limit: BodyLimits.importedFile)
        let title = request.uri.queryParameters.get("title").map(EmojiArtDocument.title(fromFileName:)) ?? "Imported"
        let decoded = try EmojiArtFile.read(bytes, defaultTitle: title)
        let state = try await library.create(decoded.document, owner: owner)
        return EditedResponse(
            status: .created,
            response: ImportBody(
                document: DocumentStateBody(state, role: .owner), format: decoded.format.rawValue, notes: decoded.notes)
        )
    }

    @Sendable func export(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (id, _) = try await authorize(.view, context)
        let formatName = request.uri.queryParameters.get("format") ?? DocumentFormat.native.rawValue
        if formatName == "text" { return try await exportText(id, request) }
        for textOnly in ["columns", "ids", "filler"] where request.uri.queryParameters.get(textOnly) != nil {
            throw APIError.badRequest("\(textOnly) is for format=text only.")
        }
        guard let format = DocumentFormat(rawValue: formatName) else {
            throw APIError.badRequest(
                "Unknown format \"\(formatName.prefix(40))\"; use native, cs193p-2023, cs193p-2021 or text.")
        }
        let state = try await state(id, request)
        let encoded = EmojiArtFile.write(state.document, as: format)
        var headers = HTTPFields()
        headers[.contentType] = "application/json; charset=utf-8"
        headers[.contentDisposition] = ContentDisposition.attachment(filename: state.document.title + ".emojiart")
        headers[.cacheControl] = "no-store"
        if !encoded.notes.isEmpty, let notes = try? JSONEncoder().encode(encoded.notes) {
            headers[HTTPField.Name("EmojiArt-Notes")!] = String(decoding: notes, as: UTF8.self).asciiHeaderValue
        }
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: encoded.bytes)))
    }

    /// `GET /api/documents/{id}/export?format=text[&columns=N][&ids=3-40,57][&filler=ideographic|square]`:
    /// the document, or the emojis `ids` names, as rows of emoji text (``EmojiTextGrid``).
    private func exportText(_ id: UUID, _ request: Request) async throws -> Response {
        let query = request.uri.queryParameters
        var columns: Int?
        if let text = query.get("columns") {
            guard let value = Int(text), (1...EmojiTextGrid.maximumColumns).contains(value) else {
                throw APIError.badRequest("columns is a whole number from 1 to \(EmojiTextGrid.maximumColumns).")
            }
            columns = value
        }
        let fillerName = query.get("filler") ?? EmojiTextGrid.Filler.ideographic.rawValue
        guard let filler = EmojiTextGrid.Filler(rawValue: fillerName) else {
            throw APIError.badRequest("filler is ideographic (U+3000, the default) or square (⬜).")
        }
        let state = try await state(id, request)
        var emojis = Array(state.document.emojis)
        if let text = query.get("ids") {
            let chosen = try Self.idList(text)
            emojis = emojis.filter { emoji in chosen.contains { $0.contains(emoji.id) } }
        }
        var headers = HTTPFields()
        headers[.contentType] = "text/plain; charset=utf-8"
        headers[.cacheControl] = "no-store"
        let text = EmojiTextGrid(emojis, columns: columns).text(filler: filler)
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    /// Ids and ranges of ids, "3-40,57": at most 1,000 parts naming at most 100,000 ids in all
    /// (counted before any is listed, so a long list of long ranges costs nothing).
    static func idList(_ text: String) throws -> [ClosedRange<Int>] {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count <= 1_000 else { throw APIError.badRequest("ids has at most 1,000 ids and ranges.") }
        var ranges: [ClosedRange<Int>] = []
        var named = 0
        for part in parts {
            let ends = part.split(separator: "-", omittingEmptySubsequences: false)
            guard (1...2).contains(ends.count), let first = Int(ends[0]), let last = Int(ends[ends.count - 1]),
                first >= 0, first <= last, last - first < DocumentLimits.maximumEmojiCount
            else { throw APIError.badRequest("ids is a list of ids and ranges of ids, e.g. 3-40,57.") }
            named += last - first + 1
            guard named <= DocumentLimits.maximumEmojiCount else {
                throw APIError.badRequest("ids names more emojis than a document holds.")
            }
            ranges.append(first...last)
        }
        return ranges
    }

    /// `GET /api/documents/{id}/picture?format=svg|png|gif[&scale=1|2|3][&background=embed|link]`
    @Sendable func picture(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (id, _) = try await authorize(.view, context)
        let query = request.uri.queryParameters
        let format = query.get("format") ?? "png"
        guard format == "svg" || format == "png" || format == "gif" else {
            throw APIError.badRequest("Unknown picture format \"\(format.prefix(40))\"; use svg, png or gif.")
        }
        let scaleText = query.get("scale") ?? "1"
        guard let scale = Int(scaleText), (1...3).contains(scale) else {
            throw APIError.badRequest("The scale must be 1, 2 or 3.")
        }
        let backgroundText = query.get("background") ?? "embed"
        guard backgroundText == "embed" || backgroundText == "link" else {
            throw APIError.badRequest("The background is embed or link.")
        }
        let linked = backgroundText == "link"
        let state = try await state(id, request)
        var headers = HTTPFields()
        headers[.cacheControl] = "no-store"
        let bytes: [UInt8]
        if format == "svg" {
            bytes = Array(try await pictures.svg(state, linkingURLBackground: linked).utf8)
            headers[.contentType] = "image/svg+xml; charset=utf-8"
        } else if format == "gif" {
            bytes = try await pictures.gif(state, scale: Double(scale))
            headers[.contentType] = "image/gif"
        } else {
            bytes = try await pictures.png(state, scale: Double(scale))
            headers[.contentType] = "image/png"
        }
        headers[.contentDisposition] = ContentDisposition.attachment(filename: state.document.title + "." + format)
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    /// `GET /api/documents/{id}/thumbnail`: a small PNG for the document browser (see
    /// ``ThumbnailCache`` for when it is redrawn); `ETag` names the version it shows.
    @Sendable func thumbnail(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (id, _) = try await authorize(.view, context)
        let state = try await library.document(id) { try await $0.state() }
        let library = self.library
        let thumbnail = try await thumbnails.thumbnail(for: state) {
            try? await library.withDocument(id) { try await $0.state() } ?? nil
        }
        var headers = HTTPFields()
        headers[.cacheControl] = "no-cache"
        headers[.eTag] = "\"\(id.uuidString)-\(thumbnail.version)\""
        if request.headers[.ifNoneMatch] == headers[.eTag] {
            return Response(status: .notModified, headers: headers)
        }
        headers[.contentType] = "image/png"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: thumbnail.png)))
    }

    @Sendable func edit(_ request: Request, context: AppRequestContext) async throws -> DocumentStateBody {
        let (id, grant) = try await authorize(.edit, context)
        let key = try IdempotencyKey(request, context, .edits)
        let bytes = try await collectJSON(request)
        let submission: EditSubmission
        do {
            submission = try EditSubmission(json: bytes)
        } catch let error as EmojiArtError where error.code == .malformedJSON || error.code == .invalidFile {
            // The body is not a submission at all: a client bug, not an invalid edit.
            throw APIError.badRequest("The request body is not an edit submission: \(error.description)")
        }
        return DocumentStateBody(
            try await library.document(id) {
                try await $0.perform(
                    submission.edits, baseVersion: submission.baseVersion, gesture: submission.gesture,
                    requestID: key?.requestID(asking: submission.canonicalBytes), author: context.author)
            }, role: grant.role)
    }

    @Sendable func setBackgroundImage(_ request: Request, context: AppRequestContext) async throws
        -> DocumentStateBody
    {
        let (id, grant) = try await authorize(.edit, context)
        let key = try IdempotencyKey(request, context, .background)
        let baseVersionText = request.uri.queryParameters.get("baseVersion")
        let baseVersion = baseVersionText.flatMap { Int($0) }.flatMap { $0 >= 0 ? $0 : nil }
        if baseVersionText != nil, baseVersion == nil {
            throw APIError.badRequest("baseVersion must be a whole number, 0 or more.")
        }
        let image = try ImagesController.validatedImage(try await collect(request, limit: BodyLimits.backgroundImage))
        let (data, mimeType) = (image.data, image.mimeType)
        let requestID = key?.requestID(asking: Data("\(baseVersion ?? -1) ".utf8) + data)
        return DocumentStateBody(
            try await library.document(id) { document in
                let version = if let baseVersion { baseVersion } else { try await document.state().version }
                return try await document.perform(
                    [.setBackground(.image(data: data, mimeType: mimeType))], baseVersion: version,
                    requestID: requestID, author: context.author)
            }, role: grant.role)
    }

    @Sendable func undo(_ request: Request, context: AppRequestContext) async throws -> DocumentStateBody {
        let (id, grant) = try await authorize(.edit, context)
        let requestID = try IdempotencyKey(request, context, .undo)?.requestID(asking: [UInt8]())
        return DocumentStateBody(
            try await library.document(id) { try await $0.undo(requestID: requestID, author: context.author) },
            role: grant.role)
    }

    @Sendable func redo(_ request: Request, context: AppRequestContext) async throws -> DocumentStateBody {
        let (id, grant) = try await authorize(.edit, context)
        let requestID = try IdempotencyKey(request, context, .redo)?.requestID(asking: [UInt8]())
        return DocumentStateBody(
            try await library.document(id) { try await $0.redo(requestID: requestID, author: context.author) },
            role: grant.role)
    }

    /// The document the path names and the requester's grant on it, if it allows `need`: before
    /// the body is read or anything is looked at.
    private func authorize(_ need: DocumentAccess.Need, _ context: AppRequestContext) async throws
        -> (UUID, DocumentAccess.Grant)
    {
        try await access.require(need, context)
    }

    /// The document now, or at the version `?version=N` asks for (docs/API.md, "History").
    private func state(_ id: UUID, _ request: Request) async throws -> LiveDocumentState {
        guard let text = request.uri.queryParameters.get("version") else {
            return try await library.document(id) { try await $0.state() }
        }
        guard let version = Int(text), version >= 0 else {
            throw APIError.badRequest("The version must be a whole number, 0 or more.")
        }
        // A version newer than this copy's may have been committed through another instance.
        let current = try await library.document(id) { try await $0.state(atLeast: version) }
        if version == current.version { return current }
        guard version < current.version, let past = try await library.history.document(id: id, at: version) else {
            throw HistoryError.versionUnavailable(version)
        }
        var background = current.backgroundState
        if past.document.background != current.document.background {
            // The image the server kept for that background, if any: nothing is fetched for the past.
            background =
                if let image = try await pictures.storedImage(for: past.document.background) {
                    .found(imageID: image.id, width: image.width, height: image.height)
                } else {
                    .none
                }
        }
        return LiveDocumentState(
            id: id, document: past.document, version: version, undoActionName: nil, redoActionName: nil,
            createdAt: current.createdAt, updatedAt: past.updatedAt, backgroundState: background)
    }

    /// Who owns what the request creates: the signed-in user (or the local one).
    static func owner(_ context: AppRequestContext) throws -> UUID {
        try context.access.account(for: "make documents of your own; a share link opens only its document")
    }

}

/// Reads a request body up to `limit` bytes, answering 413 beyond it.
func collect(_ request: Request, limit: Int) async throws -> [UInt8] {
    do {
        let buffer = try await request.body.collect(upTo: limit)
        return Array(buffer.readableBytesView)
    } catch is NIOTooManyBytesError {
        throw APIError.tooLarge(limit: limit)
    }
}

/// Reads a JSON body (at most 64 KiB): `415` unless it comes as `application/json` (an empty
/// body may come without a type). A page of another site can send `text/plain` without asking
/// first; it can't send JSON.
func collectJSON(_ request: Request) async throws -> [UInt8] {
    let contentType = request.headers[.contentType]
    if contentType != nil, !isJSONContentType(contentType) { throw APIError.notJSON }
    let bytes = try await collect(request, limit: BodyLimits.json)
    if !bytes.isEmpty, contentType == nil { throw APIError.notJSON }
    return bytes
}

/// Decodes a JSON body (``collectJSON(_:)``); nil for an empty body when `allowEmpty`.
func decode<T: Decodable>(_ type: T.Type, from request: Request, allowEmpty: Bool = false) async throws -> T? {
    try decode(type, from: try await collectJSON(request), allowEmpty: allowEmpty)
}

/// A JSON body already read, decoded as ``decode(_:from:allowEmpty:)-(_,Request,_)`` does.
func decode<T: Decodable>(_ type: T.Type, from bytes: [UInt8], allowEmpty: Bool = false) throws -> T? {
    if bytes.isEmpty {
        if allowEmpty { return nil }
        throw APIError.badRequest("The request needs a JSON body.")
    }
    return try JSONDecoder().decode(T.self, from: Data(bytes))
}

/// `Content-Disposition` with an ASCII fallback and the exact name in RFC 5987 form.
enum ContentDisposition {
    /// The most characters, and UTF-8 bytes, a file name keeps before its extension: every
    /// client takes a header this short (a whole title could be a kilobyte, three times that
    /// percent-encoded).
    static let maximumNameLength = 64
    static let maximumNameBytes = 128

    /// `attachment` with `filename` (its part before the last "." cut short) both as ASCII and
    /// as UTF-8 (RFC 6266).
    static func attachment(filename whole: String) -> String {
        let dot = whole.lastIndex(of: ".") ?? whole.endIndex
        var name = ""
        var bytes = 0
        for character in whole[..<dot].prefix(maximumNameLength) {
            bytes += character.utf8.count
            guard bytes <= maximumNameBytes else { break }
            name.append(character)
        }
        let filename = name + whole[dot...].prefix(16)
        let fallback = String(
            filename.unicodeScalars.map { scalar -> Character in
                scalar.isASCII && scalar.value >= 0x20 && scalar != "\"" && scalar != "\\" && scalar != "/"
                    ? Character(scalar) : "_"
            })
        let encoded =
            filename.addingPercentEncoding(
                withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-._~")))
            ?? fallback
        return "attachment; filename=\"\(fallback)\"; filename*=UTF-8''\(encoded)"
    }
}

extension String {
    /// Header values must be ASCII: escape anything else as JSON \u sequences.
    var asciiHeaderValue: String {
        var result = ""
        for unit in utf16 {
            if unit < 0x80, unit >= 0x20 {
                result.append(Character(Unicode.Scalar(unit)!))
            } else {
                result += String(format: "\\u%04x", unit)
            }
        }
        return result
    }
}
