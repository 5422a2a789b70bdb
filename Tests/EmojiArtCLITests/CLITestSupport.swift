import ArgumentParser
import EmojiArtCLI
import Foundation
import Synchronization

/// What one `emojiart` invocation printed and how it exited.
struct CommandResult {
    var output: String
    var errors: String
    var exitCode: Int32
}

/// Runs `emojiart ARGS` in process, capturing its output, exactly as the executable would.
func emojiart(_ arguments: String...) async -> CommandResult {
    await runArguments(arguments)
}

func runArguments(_ arguments: [String]) async -> CommandResult {
    let output = Mutex<[String]>([])
    let errors = Mutex<[String]>([])
    let console = Console(
        standardOutput: { line in output.withLock { $0.append(line) } },
        standardError: { line in errors.withLock { $0.append(line) } })
    var exitCode: Int32 = 0
    await Console.$current.withValue(console) {
        do {
            var command = try EmojiArtCommand.parseAsRoot(arguments)
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            let message = EmojiArtCommand.fullMessage(for: error)
            exitCode = EmojiArtCommand.exitCode(for: error).rawValue
            // Help and other clean exits go to standard output, as in the executable.
            if !message.isEmpty {
                exitCode == 0 ? console.standardOutput(message) : console.standardError(message)
            }
        }
    }
    return CommandResult(
        output: output.withLock { $0.joined(separator: "\n") },
        errors: errors.withLock { $0.joined(separator: "\n") },
        exitCode: exitCode)
}

/// A fresh folder for one test's files.
func makeTemporaryFolder() throws -> URL {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("emojiart-cli-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    return folder
}

let fixturesDirectory = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fixtures")

/// Copies a fixture into `folder` and returns the copy's path.
func copyFixture(_ name: String, into folder: URL) throws -> String {
    let destination = folder.appendingPathComponent(name)
    try FileManager.default.copyItem(at: fixturesDirectory.appendingPathComponent(name), to: destination)
    return destination.path
}

func contents(_ path: String) throws -> String {
    try String(contentsOfFile: path, encoding: .utf8)
}
