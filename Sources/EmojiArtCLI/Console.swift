import Foundation

/// Where commands write: standard output and standard error by default, a buffer in tests.
public struct Console: Sendable {
    public var standardOutput: @Sendable (String) -> Void
    public var standardError: @Sendable (String) -> Void

    public init(
        standardOutput: @escaping @Sendable (String) -> Void,
        standardError: @escaping @Sendable (String) -> Void
    ) {
        self.standardOutput = standardOutput
        self.standardError = standardError
    }

    public static let live = Console(
        standardOutput: { FileHandle.standardOutput.write(Data(($0 + "\n").utf8)) },
        standardError: { FileHandle.standardError.write(Data(($0 + "\n").utf8)) })

    /// The console of the running command; tests bind their own with `Console.$current.withValue`.
    @TaskLocal public static var current = Console.live
}

/// Prints a line to the current console's standard output.
func say(_ line: String) {
    Console.current.standardOutput(line)
}

/// Prints a line to the current console's standard error.
func warn(_ line: String) {
    Console.current.standardError(line)
}

/// A command that could not do what was asked, said as one sentence (exit status 1).
struct CommandFailure: Error, CustomStringConvertible {
    var description: String

    init(_ description: String) {
        self.description = description
    }
}
