import EmojiArtFetch
import EmojiArtGame
import EmojiArtJokes
import EmojiArtKit
import EmojiArtLive
import EmojiArtStore
import EmojiArtStoreSQLite
import EmojiArtWeb
import EmojiArtWire
import Foundation
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle

/// Builds the EmojiArt server: the store, the document and palette libraries, the API routes,
/// the web editor's files and the services that run beside them. `emojiart serve` and the tests
/// both call this.
///
/// The application's services, in the order they start (and the reverse of the order they stop
/// in, after the HTTP server has drained): the PostgreSQL pool, the store-change listener, the
/// maintenance that folds every open document's log on shutdown — so the last compaction is
/// written before the pool closes. PostgreSQL's migrations run before the server listens.
///
/// - Parameters:
///   - stores: the stores, if already open (tests); else the configured ones are prepared
///     (``ServerConfiguration/prepareStores(logger:)``).
///   - observability: services that must outlive the rest (the trace exporter,
///     ``Tracing/bootstrap(_:)``): they start first and stop last.
///   - onRunning: called with the URL once the server accepts connections.
public func buildApplication(
    _ configuration: ServerConfiguration, stores given: Stores? = nil, logger: Logger = Logger(label: "emojiart"),
    observability: [any Service] = [], onRunning: @escaping @Sendable (String) async -> Void = { _ in }
) async throws -> some ApplicationProtocol {
    try configuration.validateAccess()
    ServerMetrics.bootstrap()
    let prepared = try given.map { PreparedStores(stores: $0) } ?? configuration.prepareStores(logger: logger)
    let stores = prepared.stores
    let fetcher = ImageFetcher(policy: configuration.fetchPolicy, limits: configuration.fetchLimits)
    let images = BackgroundImages(store: stores.images) { url in
        let fetched = try await fetcher.fetch(url)
        return try StoredImage(data: fetched.data)
    }
    let library = DocumentLibrary(
        store: stores.documents, images: images, settings: configuration.library, logger: logger)
    let components = ServerComponents(
        stores: stores, library: library, jokes: JokeClient(endpoint: configuration.jokesEndpoint),
        settings: configuration.accessSettings, siteGuard: configuration.siteGuard, publicURL: configuration.publicURL)
    // In local mode the game draws from the local user's palettes; with accounts, from the
    // built-ins, so no one's palettes show in another's game.
    let gamePalettes =
        configuration.access == .local
        ? PaletteLibrary(store: stores.palettes) : components.builtInPalettes
    let game = GameChannel(
        source: try configuration.makeGameSource(images: stores.images, fetcher: fetcher, palettes: gamePalettes),
        logger: logger)
    let router = buildRouter(components, telemetry: configuration.requestTelemetry, logger: logger)
    var services = observability + prepared.services
    if let changes = stores.changes {
        services.append(
            StoreChangeService(
                changes: changes, library: library, palettes: components.palettes, grants: components.grants,
                presence: components.presence))
    }
    let presence = components.presence
    let sharedLimits = LiveChannel.SharedLimits(components.settings)
    if let broadcasts = stores.broadcasts {
        // Presence and the shared message rates, told to and heard from the other servers.
        services.append(
            BroadcastService(
                broadcasts: broadcasts, hub: presence,
                rates: RateExchange(server: presence.server, limits: sharedLimits)))
    }
    let live = LiveChannel(
        library: library, access: components.documentAccess, grants: components.grants,
        revocations: components.revocations, presence: presence,
        snapshots: SnapshotFrames(), shared: sharedLimits, logger: logger)
    // Stops first, right after the HTTP server: the live windows are told to reconnect, and let go of
    // their documents (and palettes and games) before the maintenance folds the documents' logs.
    let liveConnections = LiveConnections(closeTimeout: configuration.liveCloseTimeout)
    let channels = LiveChannels(
        documents: live,
        palettes: PaletteChannel(
            libraries: components.palettes, builtIns: components.builtInPalettes, logger: logger),
        game: game, closeTimeout: TimeAmount(configuration.liveCloseTimeout))
    services.append(
        MaintenanceService(
            library: library, sessions: stores.sessions, grants: components.grants,
            settings: configuration.accessSettings, interval: configuration.maintenanceInterval, logger: logger))
    services.append(liveConnections)
    let host = configuration.host
    var app = Application(
        router: router,
        server: .live(
            liveRouter: buildLiveRouter(components), siteGuard: components.siteGuard,
            headTimeout: configuration.requestHeadTimeout, channels: channels, connections: liveConnections),
        configuration: .init(address: .hostname(host, port: configuration.port), serverName: "EmojiArt"),
        services: services,
        onServerRunning: { channel in
            let port = channel.localAddress?.port ?? configuration.port
            let shownHost = host.contains(":") ? "[\(host)]" : host
            await onRunning("http://\(shownHost):\(port)/")
        },
        logger: logger
    )
    app.beforeServerStarts(perform: prepared.migrate)
    return app
}

/// Everything the routes work with, made once: the stores, the live libraries, and who may do
/// what.
public struct ServerComponents: Sendable {
    public let stores: Stores
    public let library: DocumentLibrary
    public let palettes: PaletteLibraries
    /// The built-in palettes, for visitors without an account.
    let builtInPalettes: PaletteLibrary
    public let jokes: JokeClient
    public let settings: AccessSettings
    let siteGuard: SiteGuard
    let publicURL: URL?
    let authenticator: Authenticator
    let documentAccess: DocumentAccess
    let grants: LiveGrants
    let revocations: RevocationWatch
    let hasher: PasswordHasher
    /// Who has each document open on this server (and on the others sharing its database).
    let presence: PresenceHub

    /// - Parameter library: the documents' live library; one without background fetching when
    ///   nil (router tests).
    public init(
        stores: Stores, library: DocumentLibrary? = nil, jokes: JokeClient, settings: AccessSettings = AccessSettings(),
        siteGuard: SiteGuard = SiteGuard(), publicURL: URL? = nil
    ) {
        self.stores = stores
        self.library = library ?? DocumentLibrary(store: stores.documents)
        palettes = PaletteLibraries(store: stores.palettes)
        builtInPalettes = PaletteLibrary(store: Stores.inMemory().palettes)
        self.jokes = jokes
        self.settings = settings
        self.siteGuard = siteGuard
        self.publicURL = publicURL
        authenticator = Authenticator(
            settings: settings, sessions: stores.sessions, tokens: stores.tokens, links: stores.links)
        documentAccess = DocumentAccess(shares: stores.shares)
        grants = LiveGrants(access: documentAccess, authenticator: authenticator)
        revocations = RevocationWatch(store: stores.revocations)
        hasher = PasswordHasher(cost: settings.passwordCost)
        presence = PresenceHub(broadcasts: stores.broadcasts)
    }
}

/// The routes, for the application and for router-level tests.
public func buildRouter(
    _ components: ServerComponents, telemetry: RequestTelemetry = RequestTelemetry(),
    logger: Logger = Logger(label: "emojiart")
) -> Router<AppRequestContext> {
    ServerMetrics.bootstrap()
    // HEAD is answered wherever GET is (RFC 9110 §9.3.2).
    let router = Router(context: AppRequestContext.self, options: .autoGenerateHeadEndpoints)
    // Outermost first: security headers go on every response, error responses included; each
    // request traced (when spans are exported), counted, timed and logged by route and final
    // status; then who is asking — from where,
    // and who — before any file or route is looked at.
    router.middlewares.add(SecurityHeadersMiddleware())
    if telemetry.tracing { router.middlewares.add(TracingMiddleware()) }
    router.middlewares.add(
        RequestTelemetryMiddleware(logs: telemetry.accessLog, metrics: telemetry.metrics ? RequestMetrics() : nil))
    let routeTable = RouteTable()
    router.middlewares.add(APIErrorMiddleware(routes: routeTable))
    router.middlewares.add(SiteGuardMiddleware(siteGuard: components.siteGuard))
    router.middlewares.add(AuthenticationMiddleware(authenticator: components.authenticator))
    router.middlewares.add(
        FileMiddleware(WebFiles.directory, searchForIndexHtml: true))
    let stores = components.stores
    ServiceController(store: stores.documents, settings: components.settings).addRoutes(to: router)
    MetricsController(library: components.library).addRoutes(to: router)
    let documents = router.group("/api/documents")
    DocumentsController(library: components.library, images: stores.images, access: components.documentAccess)
        .addRoutes(to: documents)
    MosaicController(
        library: components.library, access: components.documentAccess,
        pictures: DocumentPictures(store: stores.images), palettes: components.palettes,
        builtInPalettes: components.builtInPalettes
    )
    .addRoutes(to: documents)
    HistoryController(
        library: components.library, access: components.documentAccess, users: stores.users, images: stores.images
    )
    .addRoutes(to: documents)
    CommentsController(
        library: components.library, access: components.documentAccess, comments: stores.comments,
        presence: components.presence, settings: components.settings
    )
    .addRoutes(to: documents)
    SharingController(
        access: components.documentAccess, users: stores.users, shares: stores.shares, links: stores.links,
        sessions: stores.sessions, grants: components.grants, settings: components.settings,
        siteGuard: components.siteGuard,
        publicURL: components.publicURL
    ).addRoutes(documents: documents, router: router)
    SessionController(
        settings: components.settings, users: stores.users, sessions: stores.sessions, hasher: components.hasher,
        grants: components.grants, siteGuard: components.siteGuard
    ).addRoutes(session: router.group("/api/session"), users: router.group("/api/users"))
    PalettesController(palettes: components.palettes, builtIns: components.builtInPalettes)
        .addRoutes(to: router.group("/api/palettes"))
    ImagesController(store: stores.images, cache: ImageCache()).addRoutes(to: router.group("/api/images"))
    JokesController(jokes: components.jokes).addRoutes(to: router.group("/api/jokes"))
    if let catalogue = EmojiCatalogue.bundled {
        EmojiController(catalogue: catalogue).addRoutes(to: router)
    }
    WebEditor(settings: components.settings, siteGuard: components.siteGuard).addRoutes(to: router)
    routeTable.record(router.routes.map { (path: $0.path.description, method: $0.method.rawValue) })
    return router
}

/// The live routes: `/api/documents/{id}/live` (``LiveChannel``), `/api/palettes/live`
/// (``PaletteChannel``) and `/api/game/live` (``GameChannel``), upgraded to WebSockets by
/// ``LiveUpgrade``. Each finds out who is asking and what to start, before the upgrade; whether
/// they may is said with a close code after it, which a browser can read (it can't read an HTTP
/// status). A route answers `200` (upgrade) or `400` (a malformed request), never `404`: that is
/// the router's answer for a path none of them has, which the HTTP router then answers.
func buildLiveRouter(_ components: ServerComponents) -> Router<LiveRequestContext> {
    let router = Router(context: LiveRequestContext.self)
    router.middlewares.add(SecurityHeadersMiddleware())
    router.middlewares.add(LiveAuthenticationMiddleware(authenticator: components.authenticator))
    router.get("/api/documents/{id}/live") { request, context -> HTTPResponse.Status in
        guard let id = context.parameters.get("id").flatMap(UUID.init(uuidString:)) else { return .badRequest }
        let version = request.uri.queryParameters.get("version")
        guard version == nil || Int(version!) != nil else { return .badRequest }
        context.liveRoute.value = .document(
            LiveStart(
                document: id, version: version.flatMap { Int($0) }, access: context.access,
                address: ClientAddress.key(
                    peer: context.peerAddress, headers: request.headers, settings: components.settings)))
        return .ok
    }
    router.get("/api/palettes/live") { _, context -> HTTPResponse.Status in
        context.liveRoute.value = .palettes(context.access)
        return .ok
    }
    router.get("/api/game/live") { _, context -> HTTPResponse.Status in
        context.liveRoute.value = .game(context.access)
        return .ok
    }
    return router
}

/// Runs the server until SIGTERM or SIGINT, then shuts down gracefully: requests finish, live
/// connections are closed, the maintenance service folds the logs; whatever has not finished
/// after ``ServerConfiguration/shutdownGracePeriod`` is cancelled.
public func runServer(
    _ app: some ApplicationProtocol & Service, _ configuration: ServerConfiguration, logger: Logger
) async throws {
    var group = ServiceGroupConfiguration(
        services: [app], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
    group.maximumGracefulShutdownDuration = configuration.shutdownGracePeriod
    group.maximumCancellationDuration = .seconds(5)
    try await ServiceGroup(configuration: group).run()
}
