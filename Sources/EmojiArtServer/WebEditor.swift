import EmojiArtDigest
import EmojiArtWeb
import Foundation
import HTTPTypes
import Hummingbird

/// The web editor's page routes; its files are the EmojiArtWeb target's (``WebFiles``).
struct WebEditor {
    let settings: AccessSettings
    let siteGuard: SiteGuard

    /// An HTML page from the public folder, read off the request threads; never cached without
    /// asking, or with `cacheControl` (`no-store` for a page answering one request).
    static func page(_ name: String, _ context: AppRequestContext, cacheControl: String = "no-cache") async throws
        -> Response
    {
        var headers = HTTPFields()
        headers[.contentType] = "text/html; charset=utf-8"
        headers[.cacheControl] = cacheControl
        return Response(
            status: .ok, headers: headers,
            body: try await FileIO().loadFile(path: WebFiles.path(name), context: context))
    }

    func addRoutes(to router: Router<AppRequestContext>) {
        AppShell.prepare()
        let files = FileIO()
        @Sendable func page(_ name: String, _ context: AppRequestContext) async throws -> Response {
            try await WebEditor.page(name, context)
        }
        // One page serves every document; the script reads the id from the path.
        router.get("/documents/:id") { _, context in try await page("editor.html", context) }
        router.get("/jokes") { _, context in try await page("jokes.html", context) }
        router.get("/play") { _, context in try await page("play.html", context) }
        // In local mode there is nothing to sign in to: straight on to `next`, if it is a page of
        // this site (``ReturnPath``).
        router.get("/signin") { [settings, siteGuard] request, context in
            guard settings.mode == .accounts else {
                let next = ReturnPath(request.uri.queryParameters.get("next"), ownNames: siteGuard.ownNames)
                return Response(status: .seeOther, headers: [.location: next.path, .cacheControl: "no-store"])
            }
            return try await page("signin.html", context)
        }
        // The service worker, at the root so that it serves every page (docs/OFFLINE.md): its
        // source after the app shell it keeps, named by version.
        router.get("/sw.js") { _, _ in
            var headers = HTTPFields()
            headers[.contentType] = "text/javascript; charset=utf-8"
            headers[.cacheControl] = "no-cache"
            let script = try AppShell.current().serviceWorker()
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: script)))
        }
        // Each page's one script: its module and every module it imports (``ModuleBundle``), and
        // the map that shows the browser's tools the files themselves. Asked again each time (the
        // files may change with the server) and answered 304 while the bytes are the same.
        router.get("/bundles/:name") { request, context in
            let name = try context.parameters.require("name")
            let isMap = name.hasSuffix(".js.map")
            let bundle: ModuleBundle?
            do {
                bundle = try AppShell.currentBundle(named: isMap ? String(name.dropLast(".map".count)) : name)
            } catch let refusal as ModuleBundle.Refusal {
                context.logger.error("A script can't be bundled: \(refusal)")
                throw HTTPError(.internalServerError, message: "A script can't be bundled: \(refusal)")
            }
            guard let bundle else { throw HTTPError(.notFound) }
            let bytes = Data((isMap ? bundle.sourceMap : bundle.script).utf8)
            var headers = HTTPFields()
            headers[.contentType] = isMap ? "application/json" : "text/javascript; charset=utf-8"
            headers[.cacheControl] = "no-cache"
            headers[.eTag] = "\"" + Digest.hex(Digest.sha256(bytes)).prefix(32) + "\""
            if request.headers[.ifNoneMatch] == headers[.eTag] {
                return Response(status: .notModified, headers: headers)
            }
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
        }
        // Clients that don't read the pages' icon link ask for /favicon.ico: the same picture.
        router.get("/favicon.ico") { _, context in
            var headers = HTTPFields()
            headers[.contentType] = "image/svg+xml"
            headers[.cacheControl] = "max-age=86400"
            return Response(
                status: .ok, headers: headers,
                body: try await files.loadFile(path: WebFiles.path("favicon.svg"), context: context))
        }
    }
}

/// Headers that keep the pages from running anything but our own scripts.
struct SecurityHeadersMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        var response = try await next(request, context)
        // A page may run its own inline scripts, named by hash (``AppShell/inlineScripts``), and
        // nothing else inline.
        let isPage = response.headers[.contentType]?.hasPrefix("text/html") == true
        let scripts = isPage ? ((try? AppShell.current().inlineScripts) ?? []) : []
        response.headers[.contentSecurityPolicy] =
            "default-src 'self'; img-src 'self' data: blob: https: http:; style-src 'self'; script-src \((["'self'"] + scripts).joined(separator: " ")); object-src 'none'; base-uri 'none'; frame-ancestors 'none'"
        response.headers[.xContentTypeOptions] = "nosniff"
        response.headers[HTTPField.Name("Referrer-Policy")!] = "no-referrer"
        // Other sites can't even show our pictures in an <img> (and learn their size).
        response.headers[HTTPField.Name("Cross-Origin-Resource-Policy")!] = "same-origin"
        return response
    }
}
