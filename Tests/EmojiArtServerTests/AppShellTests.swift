import EmojiArtWeb
import Foundation
import HTTPTypes
import Testing

@testable import EmojiArtServer

/// The app shell the service worker keeps (docs/OFFLINE.md): which files, the version that
/// names them, and the routes that serve the worker and the manifest to anyone.
@Suite struct AppShellTests {
    /// A public folder of its own: the shell's kinds of files and some that aren't.
    func folder() throws -> URL {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("shell-\(UUID())")
        for (path, text) in [
            ("index.html", "<p>list"),
            ("editor.html", #"<script type="module" src="/bundles/editor.js"></script><p>editor"#),
            ("signin.html", #"<script type="module" src="/bundles/signin.js"></script><p>sign in"#),
            ("play.html", "<p>game"), ("openapi.yaml", "openapi: 3.1.0"), ("favicon.svg", "<svg/>"),
            ("manifest.webmanifest", "{}"), ("js/editor.js", #"import { a } from "./a.js";"#),
            ("js/a.js", "export const a = 1;"), ("js/signin.js", "// signing in"),
            ("js/offline/service-worker.js", "// worker"),
            ("css/base.css", "body{}"), ("icons/icon-192.png", "png"), ("js/.hidden.js", "no"),
        ] {
            let url = root.appendingPathComponent(path)
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: url)
        }
        return root
    }

    @Test func theShellIsThePagesTheirBundlesStylesIconsAndManifest() throws {
        let root = try folder()
        defer { try? FileManager.default.removeItem(at: root) }
        let shell = try AppShell.read(from: root.path)
        // The scripts are there as the bundle each shell page loads (the sign-in page isn't shell).
        #expect(
            shell.paths == [
                "/bundles/editor.js", "/css/base.css", "/editor.html", "/favicon.svg", "/icons/icon-192.png",
                "/index.html", "/manifest.webmanifest",
            ])
        #expect(shell.version.count == 16)
    }

    @Test func anyByteOfTheShellMakesANewVersionAndNothingElseDoes() throws {
        let root = try folder()
        defer { try? FileManager.default.removeItem(at: root) }
        let first = try AppShell.read(from: root.path)
        try Data("<p>sign in, changed".utf8).write(to: root.appendingPathComponent("signin.html"))
        #expect(try AppShell.read(from: root.path).version == first.version)
        try Data("body{color:red}".utf8).write(to: root.appendingPathComponent("css/base.css"))
        let second = try AppShell.read(from: root.path)
        #expect(second.version != first.version)
        // A module the editor imports is in its bundle: a change to it is a new shell.
        try Data("export const a = 2;".utf8).write(to: root.appendingPathComponent("js/a.js"))
        #expect(try AppShell.read(from: root.path).version != second.version)
        try Data("export const a = 1;".utf8).write(to: root.appendingPathComponent("js/a.js"))
        // A file renamed is a new shell too, even with the same bytes.
        try FileManager.default.moveItem(
            at: root.appendingPathComponent("css/base.css"), to: root.appendingPathComponent("css/main.css"))
        #expect(try AppShell.read(from: root.path).version != second.version)
    }

    @Test func aPagesInlineScriptsAreNamedByTheirHash() throws {
        let root = try folder()
        defer { try? FileManager.default.removeItem(at: root) }
        #expect(try AppShell.read(from: root.path).inlineScripts == [])
        // Any page's (the sign-in page is no shell page); a script with a source is no inline one;
        // line breaks as the browser reads them (CRLF is LF).
        try Data("<script>\r\n  const a = 1; // é\r\n</script><p>sign in".utf8).write(
            to: root.appendingPathComponent("signin.html"))
        try Data(#"<script type="module" src="/bundles/editor.js"></script><script></script>"#.utf8).write(
            to: root.appendingPathComponent("editor.html"))
        let shell = try AppShell.read(from: root.path)
        // The SHA-256 of the text between the tags, in base 64 (computed apart, by Python's hashlib).
        #expect(
            shell.inlineScripts == [
                "'sha256-47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU='",
                "'sha256-900tHphsCpUeO+SpnYNCecFiMcs6w1qHRGLLpDXZ5sU='",
            ])
    }

    @Test func aPageMayRunItsOwnInlineScriptsAndNoOtherResponseAny() async throws {
        try await withAPI { api in
            let scripts = try AppShell.current().inlineScripts
            // editor.html's (it opens the live connection) and index.html's (it asks for the list)
            #expect(scripts.count == 2)
            let page = try await api.request(.get, "/documents/\(UUID())")
            #expect(
                page.headers[.contentSecurityPolicy]?.contains("script-src 'self' \(scripts.joined(separator: " "));")
                    == true)
            let other = try await api.request(.get, "/api/health")
            #expect(other.headers[.contentSecurityPolicy]?.contains("script-src 'self';") == true)
        }
    }

    @Test func theWorkersFirstLineNamesTheShell() throws {
        let root = try folder()
        defer { try? FileManager.default.removeItem(at: root) }
        let shell = try AppShell.read(from: root.path)
        let script = String(decoding: try shell.serviceWorker(from: root.path), as: UTF8.self)
        let lines = script.split(separator: "\n", maxSplits: 1)
        #expect(lines[0].hasPrefix(#"self.APP_SHELL = {"paths":["/bundles/editor.js","/css/base.css","#))
        #expect(lines[0].hasSuffix(#""version":"\#(shell.version)"};"#))
        #expect(lines[1] == "// worker")
    }

    @Test func theWorkerTheManifestAndTheShellPagesAreOpenToAnyone() async throws {
        try await withAPI(access: testAccounts) { api in
            let worker = try await api.request(.get, "/sw.js")
            #expect(worker.status == .ok)
            #expect(worker.headers[.contentType] == "text/javascript; charset=utf-8")
            #expect(worker.headers[.cacheControl] == "no-cache")
            let text = String(decoding: worker.bytes, as: UTF8.self)
            let shell = try AppShell.current()
            #expect(text.hasPrefix("self.APP_SHELL = {"))
            #expect(text.contains(#""version":"\#(shell.version)""#))
            #expect(shell.paths.contains("/bundles/editor.js") && shell.paths.contains("/bundles/browser.js"))
            #expect(shell.paths.contains("/editor.html") && !shell.paths.contains { $0.hasPrefix("/js/") })
            for path in shell.paths {
                #expect(try await api.request(.get, path).status == .ok, "\(path)")
            }
            // The pages' addresses still send no one to sign in; their files alone don't.
            #expect(try await api.request(.get, "/documents/\(UUID())").status == .seeOther)
        }
    }
}
