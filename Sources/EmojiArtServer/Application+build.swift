import EmojiArtFetch
import EmojiArtGame
import EmojiArtJokes
import EmojiArtLive
import EmojiArtStore
import Foundation
import Hummingbird
import HummingbirdWebSocket
import Logging
import ServiceLifecycle

/// Builds the EmojiArt server: the store, the document and palette libraries, the API routes,
/// the web editor's files and the background maintenance. `emojiart serve` and the tests both
/// call this.
///
/// - Parameters:
///   - stores: the stores, if already open (``ServerConfiguration/openStores(logger:)``); else the
///     configured SQLite or in-memory ones are opened.
///   - onRunning: called with the URL once the server accepts connections.
public func buildApplication(
    _ configuration: ServerConfiguration, stores: Stores? = nil, logger: Logger = Logger(label: "emojiart"),
    onRunning: @escaping @Sendable (String) async -> Void = { _ in }
) throws -> some ApplicationProtocol {
    try configuration.validateAccess()
    let stores = try stores ?? configuration.makeStores()
    let fetcher = ImageFetcher(policy: configuration.fetchPolicy, limits: configuration.fetchLimits)
    let images = BackgroundImages(store: stores.images) { url in
        let fetched = try await fetcher.fetch(url)
        return try StoredImage(data: fetched.data)
    }
    let library = DocumentLibrary(
        store: stores.documents, images: images, settings: configuration.library, logger: logger)
    let palettes = PaletteLibrary(store: stores.palettes)
    let jokes = JokeClient(endpoint: configuration.jokesEndpoint)
    let game = GameChannel(
        source: try configuration.makeGameSource(images: stores.images, fetcher: fetcher, palettes: palettes),
        logger: logger)
    let siteGuard = configuration.siteGuard
    let router = buildRouter(
        stores: stores, library: library, palettes: palettes, jokes: jokes, siteGuard: siteGuard, logger: logger)
    var services: [any Service] = [
        MaintenanceService(
            library: library, palettes: palettes, interval: configuration.maintenanceInterval, logger: logger)
    ]
    if let shared = stores.shared {
        services.append(StoreChangeService(store: shared, library: library, palettes: palettes))
    }
    let host = configuration.host
    return Application(
        router: router,
        server: .guardedWebSocketUpgrade(
            webSocketRouter: buildLiveRouter(library: library, palettes: palettes, game: game, logger: logger),
            siteGuard: siteGuard, configuration: .init(maxFrameSize: LiveChannel.Limits().maximumMessageBytes)),
        configuration: .init(address: .hostname(host, port: configuration.port), serverName: "EmojiArt"),
        services: services,
        onServerRunning: { channel in
            let port = channel.localAddress?.port ?? configuration.port
            let shownHost = host.contains(":") ? "[\(host)]" : host
            await onRunning("http://\(shownHost):\(port)/")
        },
        logger: logger
    )
}

/// The routes, for the application and for router-level tests.
public func buildRouter(
    stores: Stores, library: DocumentLibrary, palettes: PaletteLibrary, jokes: JokeClient,
    siteGuard: SiteGuard = SiteGuard(), logger: Logger = Logger(label: "emojiart")
) -> Router<BasicRequestContext> {
    let router = Router(context: BasicRequestContext.self)
    // Outermost first: security headers go on every response, error responses included; then
    // who is asking, before any file or route is looked at.
    router.middlewares.add(SecurityHeadersMiddleware())
    router.middlewares.add(APIErrorMiddleware(logger: logger))
    router.middlewares.add(SiteGuardMiddleware(siteGuard: siteGuard))
    router.middlewares.add(
        FileMiddleware(WebEditor.publicDirectory, searchForIndexHtml: true))
    router.get("/api/health") { _, _ in
        HealthBody(status: "ok", store: stores.kind)
    }
    DocumentsController(library: library, images: stores.images).addRoutes(to: router.group("/api/documents"))
    PalettesController(palettes: palettes).addRoutes(to: router.group("/api/palettes"))
    ImagesController(store: stores.images, cache: ImageCache()).addRoutes(to: router.group("/api/images"))
    JokesController(jokes: jokes).addRoutes(to: router.group("/api/jokes"))
    WebEditor().addRoutes(to: router)
    return router
}

/// The WebSocket routes: `/api/documents/{id}/live` (``LiveChannel``), `/api/palettes/live`
/// (``PaletteChannel``) and `/api/game/live` (``GameChannel``).
func buildLiveRouter(
    library: DocumentLibrary, palettes: PaletteLibrary, game: GameChannel, logger: Logger
) -> Router<BasicWebSocketRequestContext> {
    let router = Router(context: BasicWebSocketRequestContext.self)
    router.middlewares.add(SecurityHeadersMiddleware())
    let channel = LiveChannel(library: library, logger: logger)
    router.ws("/api/documents/{id}/live") { request, context in
        guard context.parameters.get("id").flatMap(UUID.init(uuidString:)) != nil else { return .dontUpgrade }
        let version = request.uri.queryParameters.get("version")
        guard version == nil || Int(version!) != nil else { return .dontUpgrade }
        return .upgrade([:])
    } onUpgrade: { inbound, outbound, context in
        let id = context.requestContext.parameters.get("id").flatMap(UUID.init(uuidString:))
        let version = context.request.uri.queryParameters.get("version").flatMap { Int($0) }
        guard let id else { return }
        await channel.run(document: id, since: version, inbound: inbound, outbound: outbound)
    }
    let paletteChannel = PaletteChannel(palettes: palettes, logger: logger)
    router.ws("/api/palettes/live") { _, _ in
        .upgrade([:])
    } onUpgrade: { inbound, outbound, _ in
        await paletteChannel.run(inbound: inbound, outbound: outbound)
    }
    router.ws("/api/game/live") { _, _ in
        .upgrade([:])
    } onUpgrade: { inbound, outbound, _ in
        await game.run(inbound: inbound, outbound: outbound)
    }
    return router
}

struct HealthBody: ResponseEncodable {
    var status: String
    var store: String
}
