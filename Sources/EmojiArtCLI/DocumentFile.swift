import EmojiArtKit
import Foundation

/// An error about one file, printed as one sentence: "party.emojiart: emojis[3].size: …".
struct FileError: Error, CustomStringConvertible {
    var path: String
    var reason: String

    var description: String { "\(path): \(reason)" }
}

/// Reading and writing `.emojiart` files on disk for the commands.
enum DocumentFile {
    /// Reads and decodes a document; the title defaults to the file's name.
    static func read(_ path: String) throws -> DecodedDocument {
        let bytes = try readBytes(path, limit: DocumentLimits.maximumFileBytes)
        do {
            return try EmojiArtFile.read(bytes, defaultTitle: title(forFileAt: path))
        } catch let error as EmojiArtError {
            throw FileError(path: path, reason: error.description)
        }
    }

    /// A valid title made from a file's name: "party" for `party.emojiart`, without control
    /// characters, or "Untitled" if nothing usable is left.
    static func title(forFileAt path: String) -> String {
        EmojiArtDocument.title(fromFileName: URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent)
    }

    /// Encodes and writes a document atomically, printing what the format could not hold.
    ///
    /// - Parameter implicitTitle: a title taken from a file name, which needs no saving.
    static func write(
        _ document: EmojiArtDocument, to path: String, as format: DocumentFormat, implicitTitle: String? = nil
    ) throws {
        let encoded = EmojiArtFile.write(document, as: format, implicitTitle: implicitTitle)
        for note in encoded.notes { warn("note: \(note)") }
        try writeAtomically(Data(encoded.bytes), to: path)
    }

    /// Reads a file's bytes, refusing missing files, folders and files over `limit`.
    static func readBytes(_ path: String, limit: Int) throws -> [UInt8] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw FileError(path: path, reason: "no such file.")
        }
        guard !isDirectory.boolValue else { throw FileError(path: path, reason: "is a folder, not a file.") }
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        guard size <= limit else {
            throw FileError(path: path, reason: "the file is \(size) bytes; the limit is \(limit).")
        }
        do {
            return Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        } catch {
            throw FileError(path: path, reason: "could not be read (\(error.localizedDescription)).")
        }
    }

    /// Writes to a temporary file beside the destination, flushes it, then renames it over the
    /// destination: a reader sees the old file or the new one, never half of one. Writing through
    /// a symbolic link replaces the file it points at, and an existing file keeps its permissions.
    static func writeAtomically(_ data: Data, to path: String) throws {
        let destination = URL(fileURLWithPath: path).resolvingSymlinksInPath()
        let permissions = (try? FileManager.default.attributesOfItem(atPath: destination.path))?[.posixPermissions]
        let temporary = destination.deletingLastPathComponent()
            .appendingPathComponent(".\(destination.lastPathComponent).\(UUID().uuidString).tmp")
        do {
            guard FileManager.default.createFile(atPath: temporary.path, contents: nil) else {
                throw FileError(path: path, reason: "could not be written: the folder is missing or read-only.")
            }
            let handle = try FileHandle(forWritingTo: temporary)
            defer { try? handle.close() }
            try handle.write(contentsOf: data)
            try handle.synchronize()
            if let permissions {
                try FileManager.default.setAttributes([.posixPermissions: permissions], ofItemAtPath: temporary.path)
            }
            guard rename(temporary.path, destination.path) == 0 else {
                throw FileError(path: path, reason: "could not be replaced (\(String(cString: strerror(errno)))).")
            }
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            if error is FileError { throw error }
            throw FileError(path: path, reason: "could not be written (\(error.localizedDescription)).")
        }
    }
}
