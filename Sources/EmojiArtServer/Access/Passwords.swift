import Foundation
import HummingbirdBcrypt
import NIOPosix
import Synchronization

/// Passwords, kept as bcrypt hashes (HummingbirdBcrypt). Hashing is slow on purpose, so it runs
/// on NIO's thread pool, off the threads that serve requests.
public struct PasswordHasher: Sendable {
    public var cost: UInt8

    public init(cost: UInt8 = 12) {
        self.cost = cost
    }

    public func hash(_ password: String) async throws -> String {
        let cost = self.cost
        return try await NIOThreadPool.singleton.runIfActive { Bcrypt.hash(password, cost: cost) }
    }

    public func verify(_ password: String, against hash: String) async throws -> Bool {
        try await NIOThreadPool.singleton.runIfActive { Bcrypt.verify(password, hash: hash) }
    }

    /// Checked when a name is unknown, so a wrong name takes as long as a wrong password.
    public func verifyAgainstNothing(_ password: String) async throws {
        let known = Self.dummies.withLock { $0[cost] }
        let dummy: String
        if let known {
            dummy = known
        } else {
            dummy = try await hash(Secret.make())
            Self.dummies.withLock { $0[cost] = dummy }
        }
        _ = try await verify(password, against: dummy)
    }

    /// A hash of nobody's password, per cost.
    private static let dummies = Mutex<[UInt8: String]>([:])
}

/// What a user name and a password must be, said as the user should read it.
public enum AccountRules {
    public static let minimumPasswordLength = 10
    /// bcrypt reads no further.
    public static let maximumPasswordBytes = 72
    public static let maximumNameLength = 64

    /// The problem with a password, or nil.
    public static func problem(withPassword password: String) -> String? {
        if password.count < minimumPasswordLength {
            return "A password needs at least \(minimumPasswordLength) characters."
        }
        if password.utf8.count > maximumPasswordBytes {
            return "A password can have at most \(maximumPasswordBytes) bytes (bcrypt reads no further)."
        }
        return nil
    }

    /// The problem with a user name, or nil: 1–64 letters, digits, `.`, `_` or `-`, so a name
    /// reads the same everywhere, URLs included.
    public static func problem(withName name: String) -> String? {
        guard !name.isEmpty, name.count <= maximumNameLength else {
            return "A user name has 1 to \(maximumNameLength) characters."
        }
        guard
            name.unicodeScalars.allSatisfy({
                $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "._-".unicodeScalars.contains($0))
            }), name != ".", name != ".."
        else {
            return "A user name has only letters, digits, dots, underscores and hyphens (like ada or ada.lovelace)."
        }
        return nil
    }
}
