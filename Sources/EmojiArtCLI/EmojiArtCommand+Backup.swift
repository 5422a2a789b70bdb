import ArgumentParser
import EmojiArtKit
import EmojiArtServer
import EmojiArtStore
import EmojiArtStoreSQLite
import Foundation

extension EmojiArtCommand {
    /// `emojiart backup --data DIR --to FILE`: a consistent copy of a server's SQLite database.
    struct Backup: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Copy a server's database to a file, consistently, while it runs.",
            discussion: """
                Uses SQLite's online backup: the copy is the database at one moment, every change \
                acknowledged before it and nothing half-written, while the server goes on. \
                For PostgreSQL use pg_dump (docs/DEPLOY.md, "Backups").
                """)

        @Option(help: "The server's data folder ($EMOJIART_DATA).") var data: String?
        @Option(help: "The file to write; it must not exist yet.") var to: String

        func run() async throws {
            let database = try DataFolder(data).databasePath(forBackup: true)
            let contents = try storeFailure { try SQLiteBackup.backup(database: database, to: to) }
            say("Backed up \(contents.documents) documents to \(to) (\(max(1, contents.bytes / 1024)) KiB).")
        }
    }

    /// `emojiart restore FILE --data DIR [--replace]`: a backup put back as a server's database.
    struct Restore: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Put a backup in place as a server's database (stop the server first).",
            discussion: """
                Checks the file is a whole EmojiArt database, then copies it into the data folder. \
                A folder that already holds a database is left alone unless --replace is given.
                """)

        @Argument(help: "A file made by `emojiart backup`.") var file: String
        @Option(help: "The server's data folder ($EMOJIART_DATA).") var data: String?
        @Flag(help: "Overwrite the database the folder holds.") var replace = false

        func run() async throws {
            let database = try DataFolder(data).databasePath(forBackup: false)
            let contents = try storeFailure { try SQLiteBackup.restore(file, to: database, replacing: replace) }
            say("Restored \(contents.documents) documents into \(database).")
        }
    }

    /// `emojiart export-all DIR`: every document as a `.emojiart` file, and every palette list.
    struct ExportAll: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "export-all",
            abstract: "Write every document as a .emojiart file, and the palettes, into a folder.",
            discussion: """
                Reads the database `emojiart serve` uses (--data or --database), also while the \
                server runs. Each document becomes "TITLE (ID).emojiart" in the native format; the \
                palettes become palettes.json (local mode's) and palettes-NAME.json (each user's), \
                palette files that `emojiart palettes import` and both original apps read.
                """)

        @OptionGroup var store: StoreOptions
        @Argument(help: "The folder to write into (made if missing).") var folder: String

        func run() async throws {
            let stores = try await store.stores()
            let root = URL(fileURLWithPath: folder)
            try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
            var written = 0
            for summary in try await stores.documents.listDocuments() {
                guard let current = try await stores.documents.loadCurrent(id: summary.id) else { continue }
                let name = Self.fileName(current.document.title) + " (\(summary.id.uuidString.lowercased())).emojiart"
                let bytes = EmojiArtFile.write(current.document, as: .native).bytes
                try Data(bytes).write(to: root.appendingPathComponent(name), options: .atomic)
                written += 1
            }
            var owners: [(UUID, String)] = [(LocalUser.id, "palettes.json")]
            for user in try await stores.users.users() {
                owners.append((user.id, "palettes-\(Self.fileName(user.name)).json"))
            }
            var lists = 0
            for (owner, name) in owners {
                guard let palettes = try await stores.palettes.loadPalettes(owner: owner), !palettes.isEmpty else {
                    continue
                }
                try Data(PaletteFile.write(palettes)).write(to: root.appendingPathComponent(name), options: .atomic)
                lists += 1
            }
            say("Wrote \(written) documents and \(lists) palette files to \(root.path).")
        }

        /// A title as a file name: no path separators or control characters, at most 64 characters.
        static func fileName(_ title: String) -> String {
            let cleaned = String(
                title.unicodeScalars.map { scalar -> Character in
                    scalar == "/" || scalar == "\\" || scalar.properties.generalCategory == .control
                        ? "_" : Character(scalar)
                }
            ).trimmingCharacters(in: .whitespaces)
            let short = String(cleaned.prefix(64))
            return short.isEmpty || short.hasPrefix(".") ? "_" + short : short
        }
    }
}

/// The data folder a backup or restore works on: `--data`, else `$EMOJIART_DATA`, else the
/// default `emojiart serve` uses. PostgreSQL is backed up with its own tools.
private struct DataFolder {
    let configuration: ServerConfiguration
    let named: Bool

    init(_ data: String?) throws {
        var configuration = try ServerConfiguration.fromProcessEnvironment(only: ServerConfiguration.storeVariables)
        if let data { configuration.dataDirectory = data }
        self.configuration = configuration
        self.named = data != nil
    }

    func databasePath(forBackup: Bool) throws -> String {
        if configuration.databaseURL != nil, !named {
            throw CommandFailure(
                "The documents are in PostgreSQL ($EMOJIART_DATABASE_URL): use pg_dump and pg_restore (docs/DEPLOY.md, \"Backups\")."
            )
        }
        guard let folder = configuration.dataDirectory, let path = configuration.databasePath else {
            throw ValidationError("No data folder; use --data.")
        }
        if !forBackup { try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true) }
        return path
    }
}

/// Runs `body`, telling a store's failure as a sentence.
private func storeFailure<T>(_ body: () throws -> T) throws -> T {
    do {
        return try body()
    } catch let error as StoreError {
        let text = error.description
        throw CommandFailure(text.prefix(1).uppercased() + text.dropFirst() + (text.hasSuffix(".") ? "" : "."))
    }
}
