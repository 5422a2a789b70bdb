import ArgumentParser
import EmojiArtJokes
import EmojiArtServer
import Foundation

extension EmojiArtCommand {
    struct JokeCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "joke",
            abstract: "Print a joke from the Jokes app's source.",
            discussion: """
                The source is a JSON API answering {"value": "<joke>"}: --endpoint, else \
                $EMOJIART_JOKES_URL, else \(JokeClient.defaultEndpoint.absoluteString). Errors go \
                to standard error with a non-zero exit status.
                """)

        @Option(help: "The joke API's address.")
        var endpoint: String?

        @Option(help: "Seconds to wait for an answer.")
        var timeout: Double = 10

        func validate() throws {
            if let endpoint {
                guard let url = URL(string: endpoint), ["http", "https"].contains(url.scheme?.lowercased() ?? "")
                else { throw ValidationError("--endpoint must be an http or https address.") }
            }
            guard timeout > 0, timeout <= 120 else { throw ValidationError("--timeout must be 0–120 seconds.") }
        }

        func run() async throws {
            let configured = try ServerConfiguration.fromProcessEnvironment(only: ["EMOJIART_JOKES_URL"]).jokesEndpoint
            let url = endpoint.flatMap { URL(string: $0) } ?? configured
            let client = JokeClient(endpoint: url, timeout: .milliseconds(Int64(timeout * 1000)))
            do {
                say(try await client.fetch().text)
            } catch {
                warn("Error: \(error.description)")
                throw ExitCode(1)
            }
        }
    }
}
