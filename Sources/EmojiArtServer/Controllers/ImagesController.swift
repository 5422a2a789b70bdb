import EmojiArtKit
import EmojiArtStore
import Foundation
import HTTPTypes
import Hummingbird

/// `/api/images`: content-addressed image bytes. The browser loads background images from here
/// rather than from third parties; an image's URL never changes content, so it is cached forever.
struct ImagesController {
    let store: any ImageStore
    let cache: ImageCache

    struct ImageBody: ResponseEncodable {
        var id: String
        var url: String
        var mimeType: String
        var width: Int
        var height: Int

        init(_ image: StoredImage) {
            id = image.id
            url = "/api/images/\(image.id)"
            mimeType = image.mimeType
            width = image.width
            height = image.height
        }
    }

    func addRoutes(to group: RouterGroup<AppRequestContext>) {
        group.post(use: upload)
        group.get(":id", use: show)
    }

    @Sendable func upload(_ request: Request, context: AppRequestContext) async throws -> EditedResponse<ImageBody> {
        let uploader = try context.access.account(for: "upload images")
        let image = try Self.validatedImage(try await collect(request, limit: BodyLimits.backgroundImage))
        try await store.saveImage(image)
        try await store.recordImageUse(image.id, by: .uploader(uploader))
        return EditedResponse(status: .created, response: ImageBody(image))
    }

    @Sendable func show(_ request: Request, context: AppRequestContext) async throws -> Response {
        // Who is asking, and may they: an image is for the people who may see a document that
        // uses it (or who uploaded it, or play the game). Anyone else gets what an image that
        // isn't stored gets, so nobody learns which images are.
        guard let id = context.parameters.get("id"), StoredImage.isID(id),
            try await Self.mayRead(id, context.access, store: store)
        else {
            throw APIError.notFound("There is no image with that id.")
        }
        var headers = HTTPFields()
        let etag = "\"\(id)\""
        headers[.eTag] = etag
        // Private: in accounts mode only people signed in (or holding a link) may have it, so no
        // shared cache may keep it for others. Asked again every time (a 304, without reading the
        // image): who may see it can change — a link revoked, a member removed, someone signed
        // out — and a browser's cache mustn't go on showing it to them.
        headers[.cacheControl] = "private, no-cache"
        // The id is the hash of the bytes: a browser holding this ETag holds these very bytes,
        // so it can be told so without reading the image.
        if request.headers[.ifNoneMatch]?.split(separator: ",").contains(where: {
            $0.trimmingCharacters(in: .whitespaces) == etag
        }) == true {
            return Response(status: .notModified, headers: headers)
        }
        let served: (mimeType: String, bytes: ByteBuffer)
        if let cached = cache.image(id: id) {
            served = cached
        } else {
            guard let image = try await store.loadImage(id: id) else {
                throw APIError.notFound("There is no image with that id.")
            }
            served = (image.mimeType, ByteBuffer(bytes: image.data))
            cache.insert(id: id, mimeType: served.mimeType, bytes: served.bytes)
        }
        headers[.contentType] = served.mimeType
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: served.bytes))
    }

    /// Whether `access` may read the image: in local mode its one user reads everything.
    static func mayRead(_ id: String, _ access: RequestAccess, store: any ImageStore) async throws -> Bool {
        if access.requester == .local { return true }
        return try await store.mayRead(
            imageID: id,
            ImageReader(userID: access.requester.userID, linkedDocuments: access.links.map(\.documentID)))
    }

    /// A whole PNG, JPEG, GIF or WebP image: 415 for anything else, 422 for a broken one.
    static func validatedImage(_ bytes: [UInt8]) throws -> StoredImage {
        let data = Data(bytes)
        guard ImageSignature.mimeType(of: data) != nil else {
            throw APIError(
                status: .unsupportedMediaType, code: "unsupported_media_type",
                message: "An image must be a PNG, JPEG, GIF or WebP file.")
        }
        return try StoredImage(data: data)
    }
}
