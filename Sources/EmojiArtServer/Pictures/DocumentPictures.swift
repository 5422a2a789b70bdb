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

    /// The image the server holds for a background (a past version's): embedded bytes, or the
    /// image fetched for that URL before. Nothing is fetched.
    func storedImage(for background: Background) async throws -> StoredImage? {
        switch background {
        case .none: return nil
        case .image(let data, _): return try? StoredImage(data: data)
        case .url(let url):
            guard let id = try await store.imageID(forSource: url.absoluteString) else { return nil }
            return try await store.loadImage(id: id)
        }
    }

    /// The longest side of a replay, in pixels, and the most frames it has.
    static let replaySide = 800.0
    static let replayFrames = 300

    /// An animated PNG of `documents` in order, each shown `milliseconds` (the last 2 seconds),
    /// all in one frame that holds every one of them, at most ``replaySide`` pixels a side.
    func replay(_ documents: [EmojiArtDocument], milliseconds: Int) async throws -> [UInt8] {
        // Sizes come from the stored images; each is decoded when a frame first shows it, and
        // only the last one decoded is kept.
        var images: [Background: StoredImage?] = [:]
        for background in Set(documents.map(\.background)) {
            images[background] = try await storedImage(for: background)
        }
        let frames = documents.map { document in
            PictureFrame(
                document: document, backgroundSize: (images[document.background] ?? nil).map { ($0.width, $0.height) })
        }
        guard var frame = frames.first else { throw EmojiArtError(.invalidFile, "a replay needs a version.") }
        for other in frames.dropFirst() { frame = frame.union(other) }
        let scale = min(2, Self.replaySide / max(frame.width, frame.height))
        var decoded: (background: Background, bitmap: Bitmap?)?
        var pictures: [AnimatedPNG.Frame] = []
        for (index, document) in documents.enumerated() {
            if decoded?.background != document.background {
                let bitmap = (images[document.background] ?? nil).flatMap { try? ImageDecoder.bitmap($0.data) }
                decoded = (document.background, bitmap)
            }
            let picture = try PNGRenderer.render(
                document, background: decoded?.bitmap, scale: scale, embedsDocument: false, frame: frame)
            pictures.append(.init(png: picture.png, milliseconds: index == documents.count - 1 ? 2_000 : milliseconds))
        }
        return try AnimatedPNG.assemble(pictures)
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
