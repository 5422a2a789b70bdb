import ArgumentParser
import EmojiArtServer
import EmojiArtStore
import Foundation

extension EmojiArtCommand {
    /// `emojiart users …`: the accounts of a server in accounts mode.
    struct Users: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add, list and remove the people who sign in (accounts mode).",
            discussion: """
                Works on the database `emojiart serve` uses (the same --data folder or --database), \
                also while the server runs. Passwords are read from standard input when it is not a \
                terminal (one line), else typed twice; at least 10 characters. They are kept as \
                bcrypt hashes, never in clear.
                """,
            subcommands: [Add.self, List.self, Remove.self, Passwd.self])

        struct Add: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Add a user. The first admin takes over what was made in local mode.")
            @Argument(help: "Their name: letters, digits, dots, underscores and hyphens.")
            var name: String
            @Flag(help: "May manage the server (the first admin also takes over local mode's documents).")
            var admin = false
            @OptionGroup var store: StoreOptions

            func validate() throws {
                if let problem = AccountRules.problem(withName: name) { throw ValidationError(problem) }
            }

            func run() async throws {
                let stores = try await store.stores()
                let password = try PasswordInput.current.read("Password for \(name): ")
                if let problem = AccountRules.problem(withPassword: password) { throw CommandFailure(problem) }
                let hasAdmin = try await stores.users.users().contains { $0.isAdmin }
                let firstAdmin = admin && !hasAdmin
                let user = User(name: name, isAdmin: admin)
                do {
                    try await stores.users.addUser(user, passwordHash: try await PasswordHasher().hash(password))
                } catch let error as AccountStoreError {
                    throw CommandFailure(error.description.prefix(1).uppercased() + error.description.dropFirst())
                }
                say("Added \(name)\(admin ? " (admin)" : "").")
                if firstAdmin {
                    let moved = try await stores.users.transferData(from: LocalUser.id, to: user.id)
                    if moved > 0 {
                        say(
                            "\(name) now owns the \(moved) document\(moved == 1 ? "" : "s") made in local mode, and its palettes."
                        )
                    }
                }
            }
        }

        struct List: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Print every user, by name.")
            @OptionGroup var store: StoreOptions

            func run() async throws {
                let users = try await store.stores().users.users()
                if users.isEmpty { say("No users yet: add one with `emojiart users add NAME --admin`.") }
                let width = users.map(\.name.count).max() ?? 0
                for user in users {
                    let name = user.name.padding(toLength: width, withPad: " ", startingAt: 0)
                    say("\(name)  \(user.isAdmin ? "admin" : "user ")  since \(day(user.createdAt))")
                }
            }
        }

        struct Remove: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Remove a user: their sessions, tokens and palettes end, and the documents they own go too.")
            @Argument(help: "Their name.")
            var name: String
            @Option(help: "Give the documents they own (and their palettes) to this user first.")
            var transferTo: String?
            @OptionGroup var store: StoreOptions

            func run() async throws {
                let stores = try await store.stores()
                let user = try await Users.find(name, in: stores)
                if let transferTo {
                    let heir = try await Users.find(transferTo, in: stores)
                    guard heir.id != user.id else { throw ValidationError("Transfer to someone else.") }
                    let moved = try await stores.users.transferData(from: user.id, to: heir.id)
                    say("\(heir.name) now owns \(moved) document\(moved == 1 ? "" : "s") of \(user.name)'s.")
                }
                let owned = try await stores.shares.documents(of: user.id).values.filter { $0 == .owner }.count
                guard try await stores.users.removeUser(id: user.id) else {
                    throw CommandFailure("There is no user named \"\(name)\".")
                }
                say(
                    "Removed \(user.name)"
                        + (owned > 0 ? " and the \(owned) document\(owned == 1 ? "" : "s") they owned." : "."))
            }
        }

        struct Passwd: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Set a user's password; every session of theirs ends.")
            @Argument(help: "Their name.")
            var name: String
            @OptionGroup var store: StoreOptions

            func run() async throws {
                let stores = try await store.stores()
                let user = try await Users.find(name, in: stores)
                let password = try PasswordInput.current.read("New password for \(user.name): ")
                if let problem = AccountRules.problem(withPassword: password) { throw CommandFailure(problem) }
                try await stores.users.setPasswordHash(
                    try await PasswordHasher().hash(password), of: user.id, at: Date())
                say("Changed \(user.name)'s password; they are signed out everywhere.")
            }
        }

        static func find(_ name: String, in stores: Stores) async throws -> User {
            guard let user = try await stores.users.user(named: name)?.user else {
                throw CommandFailure(
                    "There is no user named \"\(name.prefix(64))\"; `emojiart users list` shows who there is.")
            }
            return user
        }
    }

    /// `emojiart tokens …`: API tokens for scripts and for the CLI against a remote server.
    struct Tokens: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create, list and revoke API tokens (accounts mode).",
            discussion: """
                A token acts as its user on every route and WebSocket: send it as \
                `Authorization: Bearer <token>`. It is printed once, when created; the server keeps \
                only its SHA-256.
                """,
            subcommands: [Create.self, List.self, Revoke.self])

        struct Create: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Create a token and print it (once).")
            @Option(help: "Whose token it is.")
            var user: String
            @Option(help: "What it is for, to recognise it in the list.")
            var name: String = "token"
            @OptionGroup var store: StoreOptions

            func run() async throws {
                let stores = try await store.stores()
                let owner = try await Users.find(user, in: stores)
                let secret = Secret.make()
                let token = APIToken(userID: owner.id, name: String(name.prefix(100)))
                try await stores.tokens.createToken(token, hash: Secret.hash(secret))
                say(secret)
                warn("Token \(token.id.uuidString) for \(owner.name). Keep it secret: it is shown only this once.")
            }
        }

        struct List: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Print tokens: every user's, or one's.")
            @Option(help: "Only this user's tokens.")
            var user: String?
            @OptionGroup var store: StoreOptions

            func run() async throws {
                let stores = try await store.stores()
                let users: [User]
                if let user {
                    users = [try await Users.find(user, in: stores)]
                } else {
                    users = try await stores.users.users()
                }
                for owner in users {
                    for token in try await stores.tokens.tokens(of: owner.id) {
                        let used = token.lastUsedAt.map { "last used \(day($0))" } ?? "never used"
                        say(
                            "\(token.id.uuidString)  \(owner.name)  \(token.name)  made \(day(token.createdAt)), \(used)"
                        )
                    }
                }
            }
        }

        struct Revoke: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Revoke a token: it stops working at once.")
            @Argument(help: "The token's id (from `emojiart tokens list`).")
            var id: String
            @OptionGroup var store: StoreOptions

            func run() async throws {
                guard let tokenID = UUID(uuidString: id) else {
                    throw ValidationError("\(id.prefix(64)) is not a token id.")
                }
                guard try await store.stores().tokens.revokeToken(id: tokenID) else {
                    throw CommandFailure("There is no token \(tokenID.uuidString).")
                }
                say("Revoked token \(tokenID.uuidString).")
            }
        }
    }
}

/// A date as a day, `2026-11-23`.
private func day(_ date: Date) -> String {
    let formatter = ISO8601DateFormatter()
    formatter.formatOptions = [.withFullDate]
    return formatter.string(from: date)
}
