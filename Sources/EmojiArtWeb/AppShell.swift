import EmojiArtDigest
import Foundation
import Synchronization

/// The app shell: the files a browser keeps to run the document list and the editor with no
/// server (docs/OFFLINE.md) — the two pages, the one script each loads (its bundle,
/// ``ModuleBundle``), the styles, the icons and the manifest — and a version that changes with
/// any byte of them, so the service worker replaces its copy exactly when a new server brings
/// new files.
public struct AppShell: Sendable, Equatable {
    /// The URL paths of the files, sorted ("/bundles/editor.js", "/css/base.css", …).
    public var paths: [String]
    /// The first 16 hex digits of the SHA-256 of every file's path and bytes.
    public var version: String
    /// The Content-Security-Policy sources (`'sha256-…'`) of the inline scripts of every page in
    /// the folder, sorted: the only inline scripts the pages may run (each starts its page's first
    /// request before the page's styles and bundle arrive: docs/EDITOR.md).
    public var inlineScripts: [String] = []

    /// The pages the shell holds; the others (signing in, a share link, the game) need the server.
    static let pages: Set<String> = ["index.html", "editor.html"]
    /// What else of the folder is shell: styles, icons, the manifest. The scripts are there as
    /// the pages' bundles, which hold every module they import.
    static let folders = ["css/", "icons/"]
    static let files: Set<String> = ["favicon.svg", "manifest.webmanifest"]

    /// Whether `path` (relative to the folder) is part of the shell.
    static func holds(_ path: String) -> Bool {
        pages.contains(path) || files.contains(path) || folders.contains { path.hasPrefix($0) }
    }

    /// The shell as the folder has it now.
    public static func read(from directory: String = WebFiles.directory) throws -> AppShell {
        try read(from: directory) { try bundle(named: $0, from: directory) }
    }

    /// The shell as the folder has it now, with each page's bundle as `bundle` gives it by name.
    static func read(from directory: String, bundle: (String) throws -> ModuleBundle?) throws -> AppShell {
        let root = URL(fileURLWithPath: directory, isDirectory: true).standardizedFileURL
        guard let walker = FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.isRegularFileKey])
        else { throw CocoaError(.fileReadNoSuchFile) }
        var files: [String: Data] = [:]
        var scripts: Set<String> = []
        for case let url as URL in walker {
            guard (try? url.resourceValues(forKeys: [.isRegularFileKey]))?.isRegularFile == true else { continue }
            let path = String(url.standardizedFileURL.path.dropFirst(root.path.count + 1))
            guard !path.hasPrefix("."), !path.contains("/."), holds(path) || path.hasSuffix(".html") else { continue }
            let bytes = try Data(contentsOf: url)
            if holds(path) { files["/" + path] = bytes }
            if path.hasSuffix(".html") { scripts.formUnion(inlineScripts(in: String(decoding: bytes, as: UTF8.self))) }
        }
        for page in pages {
            guard let html = files["/" + page] else { continue }
            for name in bundleNames(in: String(decoding: html, as: UTF8.self)) {
                guard let bundle = try bundle(name) else { continue }
                files[bundlePrefix + name] = Data(bundle.script.utf8)
            }
        }
        let paths = files.keys.sorted()
        var hashed = Data()
        for path in paths {
            hashed.append(contentsOf: Array(path.dropFirst().utf8) + [0])
            hashed.append(contentsOf: Digest.sha256(files[path]!))
        }
        let version = String(Digest.hex(Digest.sha256(hashed)).prefix(16))
        return AppShell(paths: paths, version: version, inlineScripts: scripts.sorted())
    }

    /// The CSP sources of the inline scripts of `html`: each `<script>` with no attributes, by the
    /// SHA-256 of its text as the browser reads it (between the tags, its line breaks made LF as
    /// the HTML parser makes them, so a checkout with CRLF hashes the same).
    static func inlineScripts(in html: String) -> [String] {
        html.matches(of: #/<script>([\s\S]*?)</script>/#).map {
            let text = String($0.output.1).replacing("\r\n", with: "\n").replacing("\r", with: "\n")
            return "'sha256-" + Data(Digest.sha256(Data(text.utf8))).base64EncodedString() + "'"
        }
    }

    /// The shell of the files served: read once (until a file changes, in a debug build).
    public static func current() throws -> AppShell {
        try withWritten { written in
            if let shell = written.shell { return shell }
            // The bundles it holds are the ones served: written once for both.
            let shell = try read(from: WebFiles.directory) { try kept(bundle: $0, in: &written) }
            written.shell = shell
            return shell
        }
    }

    /// Writes the shell and its bundles now (a release build keeps them), so that no page waits
    /// for them; a debug build writes them on every request anyway.
    public static func prepare() {
        #if !DEBUG
            guard let shell = try? current() else { return }
            for path in shell.paths where path.hasPrefix(bundlePrefix) {
                _ = try? currentBundle(named: String(path.dropFirst(bundlePrefix.count)))
            }
        #endif
    }

    // MARK: - Bundles

    /// Where bundles are served: `/bundles/editor.js` is `js/editor.js` and what it imports.
    public static let bundlePrefix = "/bundles/"

    /// The bundles a page's `<script type="module" src="/bundles/….js">` tags name ("editor.js").
    static func bundleNames(in html: String) -> [String] {
        html.matches(of: #/<script type="module" src="/bundles/([a-z0-9-]+\.js)">/#).map { String($0.output.1) }
    }

    /// The bundle of `name` ("editor.js": js/editor.js and what it imports), or nil when js/
    /// has no such script; throws ``ModuleBundle/Refusal`` for modules it can't bundle.
    public static func bundle(named name: String, from directory: String = WebFiles.directory) throws
        -> ModuleBundle?
    {
        guard name.wholeMatch(of: #/[a-z0-9-]{1,64}\.js/#) != nil,
            FileManager.default.fileExists(atPath: directory + "/js/" + name)
        else { return nil }
        return try ModuleBundle.write(entry: "js/" + name, name: name, directory: directory)
    }

    /// The bundle of `name` served: written once (until a file changes, in a debug build). Only
    /// bundles that exist are kept, so asking for other names costs nothing kept.
    public static func currentBundle(named name: String) throws -> ModuleBundle? {
        try withWritten { try kept(bundle: name, in: &$0) }
    }

    /// The bundle `name` as `written` keeps it, written now if it isn't (and kept if it exists).
    private static func kept(bundle name: String, in written: inout Written) throws -> ModuleBundle? {
        if let bundle = written.bundles[name] { return bundle }
        guard let bundle = try bundle(named: name) else { return nil }
        written.bundles[name] = bundle
        return bundle
    }

    // MARK: - What is written once

    /// The shell and the bundles written from the folder served, and the folder they were written
    /// from: a release build's never changes, a debug build serves the source folder, edited
    /// while it runs, so there a change of any file's size or time writes them again.
    private struct Written {
        var stamp: [String] = []
        var shell: AppShell?
        var bundles: [String: ModuleBundle] = [:]
    }

    private static let written = Mutex(Written())

    private static func withWritten<T>(_ body: (inout Written) throws -> T) throws -> T {
        #if DEBUG
            let stamp = folderStamp()
        #endif
        return try written.withLock { written in
            #if DEBUG
                if written.stamp != stamp { written = Written(stamp: stamp) }
            #endif
            return try body(&written)
        }
    }

    /// Every file of the folder served, with its size and modification time.
    static func folderStamp(_ directory: String = WebFiles.directory) -> [String] {
        let keys: [URLResourceKey] = [.fileSizeKey, .contentModificationDateKey]
        guard
            let walker = FileManager.default.enumerator(
                at: URL(fileURLWithPath: directory), includingPropertiesForKeys: keys)
        else { return [] }
        var stamp: [String] = []
        for case let url as URL in walker {
            let values = try? url.resourceValues(forKeys: Set(keys))
            stamp.append(
                "\(url.path) \(values?.fileSize ?? -1) \(values?.contentModificationDate?.timeIntervalSince1970 ?? 0)")
        }
        return stamp.sorted()
    }

    /// The service worker's script: its source (js/offline/service-worker.js) after a first line
    /// naming this shell — `self.APP_SHELL = {"version": …, "paths": […]}` — so a new version is a
    /// new script, which the browser installs in place of the old.
    public func serviceWorker(from directory: String = WebFiles.directory) throws -> Data {
        let source = try Data(contentsOf: URL(fileURLWithPath: directory).appendingPathComponent(Self.workerSource))
        let shell = try JSONSerialization.data(
            withJSONObject: ["version": version, "paths": paths], options: [.sortedKeys, .withoutEscapingSlashes])
        var script = Data("self.APP_SHELL = ".utf8)
        script.append(shell)
        script.append(Data(";\n".utf8))
        script.append(source)
        return script
    }

    /// Where the service worker's source is, in the folder.
    public static let workerSource = "js/offline/service-worker.js"
}
