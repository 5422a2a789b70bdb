import Foundation
import HTTPTypes
import Hummingbird

/// The web editor's files (Sources/EmojiArtServer/Public) and its page routes.
struct WebEditor {
    /// Where the files are on disk: the bundled copy, or in a debug build the source folder
    /// itself, so editing the page and reloading the browser shows the change without a rebuild.
    static var publicDirectory: String {
        #if DEBUG
            let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Public")
            if FileManager.default.fileExists(atPath: source.appendingPathComponent("index.html").path) {
                return source.path
            }
        #endif
        return Bundle.module.resourceURL?.appendingPathComponent("Public").path ?? "Public"
    }

    func addRoutes(to router: Router<AppRequestContext>) {
        // One page serves every document; the script reads the id from the path.
        router.get("/documents/:id") { _, _ in try page("editor.html") }
        router.get("/jokes") { _, _ in try page("jokes.html") }
        router.get("/play") { _, _ in try page("play.html") }
        router.get("/signin") { _, _ in try page("signin.html") }
    }
}

/// An HTML page from the public folder, never cached without asking.
private func page(_ name: String) throws -> Response {
    let page = try Data(contentsOf: URL(fileURLWithPath: WebEditor.publicDirectory + "/" + name))
    var headers = HTTPFields()
    headers[.contentType] = "text/html; charset=utf-8"
    headers[.cacheControl] = "no-cache"
    return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: page)))
}

/// Headers that keep the pages from running anything but our own scripts.
struct SecurityHeadersMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        var response = try await next(request, context)
        response.headers[.contentSecurityPolicy] =
            "default-src 'self'; img-src 'self' data: blob: https: http:; style-src 'self'; script-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'"
        response.headers[.xContentTypeOptions] = "nosniff"
        response.headers[HTTPField.Name("Referrer-Policy")!] = "no-referrer"
        // Other sites can't even show our pictures in an <img> (and learn their size).
        response.headers[HTTPField.Name("Cross-Origin-Resource-Policy")!] = "same-origin"
        return response
    }
}
