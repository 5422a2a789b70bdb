import Foundation

/// The web editor — the View of EmojiArt — as files: its pages, scripts, styles, icons and the
/// OpenAPI document (Sources/EmojiArtWeb/Public), plain HTML, CSS and JavaScript modules with no
/// build step. The server depends on this target and serves the folder; nothing here knows HTTP.
public enum WebFiles {
    /// Where the files are on disk: the bundled copy, or in a debug build the source folder
    /// itself, so editing the page and reloading the browser shows the change without a rebuild.
    public static var directory: String {
        #if DEBUG
            let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Public")
            if FileManager.default.fileExists(atPath: source.appendingPathComponent("index.html").path) {
                return source.path
            }
        #endif
        return Bundle.module.resourceURL?.appendingPathComponent("Public").path ?? "Public"
    }

    /// The path of one file of the folder (`name` relative to it, e.g. "openapi.yaml").
    public static func path(_ name: String) -> String { directory + "/" + name }
}
