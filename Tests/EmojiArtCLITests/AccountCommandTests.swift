import EmojiArtCLI
import Foundation
import Testing

@Suite("emojiart users and tokens")
struct AccountCommandTests {
    func withPassword(_ password: String, _ body: () async -> CommandResult) async -> CommandResult {
        await PasswordInput.$current.withValue(PasswordInput { _ in password }) { await body() }
    }

    @Test func usersAreAddedListedGivenNewPasswordsAndRemovedInTheServersDatabase() async throws {
        let data = try makeTemporaryFolder().path
        let added = await withPassword("correct horse battery") {
            await emojiart("users", "add", "ada", "--admin", "--data", data)
        }
        #expect(added.exitCode == 0 && added.output.hasPrefix("Added ada (admin)."), "\(added.errors)")
        let short = await withPassword("short") { await emojiart("users", "add", "bob", "--data", data) }
        #expect(short.exitCode == 1 && short.errors.contains("at least 10 characters"))
        let taken = await withPassword("correct horse battery") {
            await emojiart("users", "add", "ADA", "--data", data)
        }
        #expect(taken.exitCode == 1 && taken.errors.contains("already a user named"))
        let badName = await emojiart("users", "add", "ada lovelace", "--data", data)
        #expect(badName.exitCode == 64 && badName.errors.contains("letters, digits"))
        #expect(
            await withPassword("another good one") { await emojiart("users", "add", "bob", "--data", data) }.exitCode
                == 0)

        let list = await emojiart("users", "list", "--data", data)
        let lines = list.output.split(separator: "\n")
        #expect(lines.count == 2 && lines[0].hasPrefix("ada  admin") && lines[1].hasPrefix("bob  user"))
        #expect(!list.output.contains("local"), "the local user is not listed")

        let passwd = await withPassword("a brand new password") {
            await emojiart("users", "passwd", "bob", "--data", data)
        }
        #expect(passwd.exitCode == 0 && passwd.output.contains("signed out everywhere"))
        let unknown = await withPassword("a brand new password") {
            await emojiart("users", "passwd", "carol", "--data", data)
        }
        #expect(unknown.exitCode == 1 && unknown.errors.contains("no user named \"carol\""))

        let removed = await emojiart("users", "remove", "bob", "--transfer-to", "ada", "--data", data)
        #expect(removed.exitCode == 0 && removed.output.contains("Removed bob"), "\(removed.errors)")
        #expect(await emojiart("users", "list", "--data", data).output.split(separator: "\n").count == 1)
        #expect(await emojiart("users", "remove", "bob", "--data", data).exitCode == 1)
    }

    @Test func tokensArePrintedOnceListedAndRevoked() async throws {
        let data = try makeTemporaryFolder().path
        #expect(
            await withPassword("correct horse battery") { await emojiart("users", "add", "ada", "--data", data) }
                .exitCode == 0)
        let created = await emojiart("tokens", "create", "--user", "ada", "--name", "backup", "--data", data)
        #expect(created.exitCode == 0)
        let token = created.output.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(token.count == 43 && !token.contains(" "))
        #expect(created.errors.contains("shown only this once"))
        let list = await emojiart("tokens", "list", "--data", data)
        #expect(list.output.contains("ada  backup") && list.output.contains("never used"))
        #expect(!list.output.contains(token), "a token is never shown again")
        let id = try #require(list.output.split(separator: " ").first.map(String.init))
        #expect(await emojiart("tokens", "revoke", id, "--data", data).exitCode == 0)
        #expect(await emojiart("tokens", "revoke", id, "--data", data).exitCode == 1)
        #expect(await emojiart("tokens", "list", "--data", data).output.isEmpty)
        #expect(await emojiart("tokens", "create", "--user", "nobody", "--data", data).exitCode == 1)
        #expect(await emojiart("tokens", "revoke", "not-an-id", "--data", data).exitCode == 64)
    }
}
