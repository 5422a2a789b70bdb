import EmojiArtDigest
import Foundation
import Synchronization

/// The app shell: the files a browser keeps to run the document list and the editor with no
/// server (docs/OFFLINE.md) — the two pages, every script and style, the icons and the
/// manifest — and a version that changes with any byte of them, so the service worker replaces
/// its copy exactly when a new server brings new files.
public struct AppShell: Sendable, Equatable {
    /// The URL paths of the files, sorted ("/css/base.css", "/editor.html", …).
    public var paths: [String]
    /// The first 16 hex digits of the SHA-256 of every file's path and bytes.
    public var version: String

    /// The pages the shell holds; the others (signing in, a share link, the game) need the server.
    static let pages: Set<String> = ["index.html", "editor.html"]
    /// What else of the folder is shell: scripts, styles, icons, the manifest.
    static let folders = ["js/", "css/", "icons/"]
    static let files: Set<String> = ["favicon.svg", "manifest.webmanifest"]

    /// Whether `path` (relative to the folder) is part of the shell.
    static func holds(_ path: String) -> Bool {
        pages.contains(path) || files.contains(path) || folders.contains { path.hasPrefix($0) }
    }

    /// The shell as the folder has it now.
    public static func read(from directory: String = WebFiles.directory) throws -> AppShell {
        let root = URL(fileURLWithPath: directory, isDirectory: true).standardizedFileURL
        guard let walker = FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.isRegularFileKey])
        else { throw CocoaError(.fileReadNoSuchFile) }
        var relative: [String] = []
        for case let url as URL in walker {
            guard (try? url.resourceValues(forKeys: [.isRegularFileKey]))?.isRegularFile == true else { continue }
            let path = String(url.standardizedFileURL.path.dropFirst(root.path.count + 1))
            if holds(path), !path.hasPrefix("."), !path.contains("/.") { relative.append(path) }
        }
        relative.sort()
        var hashed = Data()
        for path in relative {
            hashed.append(contentsOf: Array(path.utf8) + [0])
            hashed.append(contentsOf: Digest.sha256(try Data(contentsOf: root.appendingPathComponent(path))))
        }
        let version = String(Digest.hex(Digest.sha256(hashed)).prefix(16))
        return AppShell(paths: relative.map { "/" + $0 }, version: version)
    }

    /// The shell of the files served: read once, or in a debug build (which serves the source
    /// folder, edited while it runs) on every call.
    public static func current() throws -> AppShell {
        #if DEBUG
            return try read()
        #else
            return try cache.withLock { cached in
                if let cached { return cached }
                let shell = try read()
                cached = shell
                return shell
            }
        #endif
    }

    private static let cache = Mutex<AppShell?>(nil)

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
