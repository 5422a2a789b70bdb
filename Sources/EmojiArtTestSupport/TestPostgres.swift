import EmojiArtStore
import EmojiArtStorePostgres
import Foundation
import Logging
import PostgresNIO

/// The PostgreSQL server for the tests (`$EMOJIART_TEST_POSTGRES`), and a fresh database on it
/// for each store a test opens.
public enum TestPostgres {
    public static var url: String? {
        ProcessInfo.processInfo.environment["EMOJIART_TEST_POSTGRES"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Every store on a new, empty database, migrated.
    public static func freshStores() async throws -> Stores {
        Stores(database: try await PostgreSQLDatabase.open(try freshDatabase()))
    }

    /// Creates a new database on the test server and returns where it is.
    public static func freshDatabase() async throws -> PostgreSQLDatabase.Connection {
        guard let url else { throw StoreError.unavailable("EMOJIART_TEST_POSTGRES is not set") }
        var connection = try PostgreSQLDatabase.Connection(url: url)
        let name = "test_\(UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased())"
        let client = PostgresClient(
            configuration: .init(
                host: connection.host, port: connection.port, username: connection.username,
                password: connection.password, database: connection.database, tls: .disable))
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await client.run() }
            try await client.query(PostgresQuery(unsafeSQL: "CREATE DATABASE \(name)"))
            group.cancelAll()
        }
        connection.database = name
        return connection
    }
}
