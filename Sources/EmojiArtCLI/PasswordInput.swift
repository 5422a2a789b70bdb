import ArgumentParser
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Reads a new password: from standard input when it is not a terminal (scripts: one line),
/// else typed twice at a prompt with echo off. Tests give their own reader.
public struct PasswordInput: Sendable {
    public var read: @Sendable (_ prompt: String) throws -> String

    public init(read: @escaping @Sendable (_ prompt: String) throws -> String) {
        self.read = read
    }

    /// What a user types, or a script pipes in.
    public static let standardInput = PasswordInput { prompt in
        if isatty(STDIN_FILENO) == 0 {
            guard let line = readLine(strippingNewline: true) else {
                throw ValidationError("Give the password on standard input (one line).")
            }
            return line
        }
        let first = try typedWithoutEcho(prompt)
        let second = try typedWithoutEcho("Again: ")
        guard first == second else { throw ValidationError("The two passwords differ; nothing was changed.") }
        return first
    }

    /// The password input of the running command; tests bind their own.
    @TaskLocal public static var current = PasswordInput.standardInput

    private static func typedWithoutEcho(_ prompt: String) throws -> String {
        FileHandle.standardError.write(Data(prompt.utf8))
        var saved = termios()
        tcgetattr(STDIN_FILENO, &saved)
        var silent = saved
        silent.c_lflag &= ~tcflag_t(ECHO)
        tcsetattr(STDIN_FILENO, TCSANOW, &silent)
        defer {
            tcsetattr(STDIN_FILENO, TCSANOW, &saved)
            FileHandle.standardError.write(Data("\n".utf8))
        }
        guard let line = readLine(strippingNewline: true) else { throw ValidationError("No password given.") }
        return line
    }
}
