import EmojiArtImaging
import EmojiArtKit
import EmojiArtLive
import EmojiArtRender
import EmojiArtStore
import Foundation

/// Pictures of live documents, drawn with the server's stored copy of the background image.
struct DocumentPictures: Sendable {
    let store: any ImageStore

    /// The longest side of a thumbnail, in pixels.
    static let thumbnailSide = 240.0

    /// The background image the server holds for `state` (embedded bytes, or the image it
    /// fetched for a URL), if it has one.
    func backgroundImage(of state: LiveDocumentState) async throws -> StoredImage? {
        guard case .found(let imageID, _, _) = state.backgroundState else { return nil }
        return try await store.loadImage(id: imageID)
    }

    func svg(_ state: LiveDocumentState, linkingURLBackground: Bool) async throws -> String {
        let image = try await backgroundImage(of: state)
        let background: SVGRenderer.BackgroundImage =
            switch (state.document.background, image) {
            case (.url(let url), let image?) where linkingURLBackground:
                .linked(url: url, width: image.width, height: image.height)
            case (_, let image?):
                .embedded(data: image.data, mimeType: image.mimeType, width: image.width, height: image.height)
            default: .none
            }
        return SVGRenderer.render(state.document, background: background)
    }

    func png(_ state: LiveDocumentState, scale: Double) async throws -> [UInt8] {
        let bitmap = try await backgroundImage(of: state).map { try ImageDecoder.bitmap($0.data) }
        return try PNGRenderer.render(state.document, background: bitmap, scale: scale).png
    }

    /// A small PNG (at most ``thumbnailSide`` pixels a side) without the document inside.
    func thumbnail(_ state: LiveDocumentState) async throws -> [UInt8] {
        let image = try await backgroundImage(of: state)
        let frame = PictureFrame(document: state.document, backgroundSize: image.map { ($0.width, $0.height) })
        let scale = min(1, Self.thumbnailSide / max(frame.width, frame.height))
        let bitmap = try image.map { try ImageDecoder.bitmap($0.data) }
        return try PNGRenderer.render(state.document, background: bitmap, scale: scale, embedsDocument: false).png
    }
}
