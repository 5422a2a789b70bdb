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
        case .image(let data, _):
            // The store's copy (its size known) before decoding the bytes again.
            if let stored = try await store.loadImage(id: StoredImage.id(of: data)) { return stored }
            return try? StoredImage(data: data)
        case .url(let url):
            guard let id = try await store.imageID(forSource: url.absoluteString) else { return nil }
            return try await store.loadImage(id: id)
        }
    }

    /// The longest side of a replay, in pixels, and the most frames it has.
    static let replaySide = 800.0
    static let replayFrames = 300

    /// An animated PNG (or, with `gif`, an animated GIF) of `documents` in order, each shown
    /// `milliseconds` (the last 2 seconds), all in one frame that holds every one of them, at
    /// most ``replaySide`` pixels a side.
    func replay(_ documents: [EmojiArtDocument], milliseconds: Int, gif: Bool = false) async throws -> [UInt8] {
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
        func background(of document: EmojiArtDocument) -> Bitmap? {
            if decoded?.background != document.background {
                let bitmap = (images[document.background] ?? nil).flatMap { try? ImageDecoder.bitmap($0.data) }
                decoded = (document.background, bitmap)
            }
            return decoded?.bitmap
        }
        func shown(_ index: Int) -> Int { index == documents.count - 1 ? 2_000 : milliseconds }
        if gif {
            // Drawn one frame at a time (a few first, for the palette): only one is held.
            return try GIFWriter.write(frameCount: documents.count) { index in
                let document = documents[index]
                let bitmap = try PNGRenderer.bitmap(
                    document, background: background(of: document), scale: scale, frame: frame)
                return GIFWriter.Frame(bitmap: bitmap, milliseconds: shown(index))
            }
        }
        var pictures: [AnimatedPNG.Frame] = []
        for (index, document) in documents.enumerated() {
            let picture = try PNGRenderer.render(
                document, background: background(of: document), scale: scale, embedsDocument: false, frame: frame)
            pictures.append(.init(png: picture.png, milliseconds: shown(index)))
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

    /// A still GIF of the document, at most ``replaySide`` pixels a side (GIFs are for chat).
    func gif(_ state: LiveDocumentState, scale: Double) async throws -> [UInt8] {
        let bitmap = try await backgroundImage(of: state).map { try ImageDecoder.bitmap($0.data) }
        let frame = PictureFrame(document: state.document, backgroundSize: bitmap.map { ($0.width, $0.height) })
        let fitted = min(scale, Self.replaySide / max(frame.width, frame.height))
        let picture = try PNGRenderer.bitmap(state.document, background: bitmap, scale: fitted, frame: frame)
        return try GIFWriter.write([.init(bitmap: picture, milliseconds: 0)])
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
