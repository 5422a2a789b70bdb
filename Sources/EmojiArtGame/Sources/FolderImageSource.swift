import Foundation

/// Pictures from a folder on the server (`emojiart serve --game-images DIR`): PNG, JPEG, GIF
/// and WebP files directly in it, chosen at random. Each file is checked and stored the first
/// time it is drawn.
public actor FolderImageSource: GameImageSource {
    public static let extensions: Set<String> = ["png", "jpg", "jpeg", "gif", "webp"]
    /// Larger files are refused, as downloads are (``ImageFetcher/Limits``).
    public static let maximumFileBytes = 20 * 1024 * 1024

    public let directory: URL
    private let files: [URL]
    private let images: GameImageStore
    private var kept: [URL: GameImage] = [:]

    /// Why a folder cannot be played with.
    public struct Unusable: Error, CustomStringConvertible {
        public var description: String
    }

    /// Lists the folder once; it must hold at least two pictures, or no level can be played.
    public init(directory: URL, images: GameImageStore) throws(Unusable) {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        } catch {
            throw Unusable(description: "the folder \(directory.path) can't be read")
        }
        let files = names.sorted()
            .filter { !$0.hasPrefix(".") && Self.extensions.contains(($0 as NSString).pathExtension.lowercased()) }
            .map { directory.appendingPathComponent($0) }
        guard files.count >= 2 else {
            throw Unusable(
                description: "the folder \(directory.path) holds \(files.count == 0 ? "no" : "only one") PNG, JPEG, "
                    + "GIF or WebP file; the game needs two or more")
        }
        self.directory = directory
        self.files = files
        self.images = images
    }

    public var fileCount: Int { files.count }

    public func randomImage() async throws(GameImageError) -> GameImage {
        let file = files.randomElement()!
        if let image = kept[file] { return image }
        let name = file.lastPathComponent
        let size = (try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int) ?? 0
        guard size <= Self.maximumFileBytes else {
            throw .invalidImage("\(name) is larger than \(Self.maximumFileBytes / (1024 * 1024)) MB")
        }
        guard let data = FileManager.default.contents(atPath: file.path) else {
            throw .other("\(name) can't be read")
        }
        let image = try await images.keep(data, name: name)
        kept[file] = image
        return image
    }

    public func status() async -> GameSourceStatus {
        GameSourceStatus(name: "\(files.count) pictures from \(directory.lastPathComponent)")
    }
}
