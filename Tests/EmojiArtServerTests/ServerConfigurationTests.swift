import EmojiArtStore
import EmojiArtStorePostgres
import EmojiArtTestSupport
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import Synchronization
import Testing

@testable import EmojiArtServer

/// The environment is read in one place, and the server's services start and stop in order.
struct ServerConfigurationTests {
    @Test func theDefaultsReadNothing() {
        let configuration = ServerConfiguration()
        #expect(configuration.host == "127.0.0.1")
        #expect(configuration.port == 8080)
        #expect(configuration.dataDirectory == nil)
        #expect(configuration.databaseURL == nil)
        #expect(configuration.fetchPolicy.allowsPublicAddresses)
        #expect(configuration.trustedProxies.isEmpty)
    }

    @Test func theEnvironmentSetsWhatItNames() throws {
        let configuration = try ServerConfiguration(environment: [
            "EMOJIART_HOST": "::1", "EMOJIART_PORT": "0", "EMOJIART_ACCESS": "accounts", "EMOJIART_SIGNUP": "open",
            "EMOJIART_PUBLIC_URL": "https://art.example.com", "EMOJIART_DATA": "/srv/emojiart",
            "EMOJIART_DURABILITY": "normal", "EMOJIART_DATABASE_URL": "postgres://a@db/emojiart",
            "EMOJIART_FETCH_PUBLIC": "0", "EMOJIART_FETCH_ALLOW": "127.0.0.1/32",
            "EMOJIART_TRUSTED_PROXIES": "10.0.0.0/8, 192.168.1.1", "EMOJIART_JOKES_URL": "http://127.0.0.1:9/joke",
            "EMOJIART_GAME_IMAGES": "/srv/pictures", "EMOJIART_LIVE_MESSAGES_PER_ADDRESS": "5000",
            "EMOJIART_LIVE_MESSAGES_PER_DOCUMENT": "20",
        ])
        #expect(configuration.host == "::1")
        #expect(configuration.port == 0)
        #expect(configuration.access == .accounts)
        #expect(configuration.openSignup)
        #expect(configuration.publicURL?.host == "art.example.com")
        #expect(configuration.accessSettings.secureCookies)
        #expect(configuration.dataDirectory == "/srv/emojiart")
        #expect(configuration.durability == .normal)
        #expect(configuration.databaseURL == "postgres://a@db/emojiart")
        #expect(!configuration.fetchPolicy.allowsPublicAddresses)
        #expect(configuration.trustedProxies.count == 2)
        #expect(configuration.jokesEndpoint.absoluteString == "http://127.0.0.1:9/joke")
        #expect(configuration.accessSettings.liveMessagesPerAddress == RateLimit(perSecond: 5_000, burst: 10_000))
        #expect(configuration.accessSettings.liveMessagesPerDocument == RateLimit(perSecond: 20, burst: 40))
        guard case .folder("/srv/pictures") = configuration.gamePictures else {
            Issue.record("game pictures: \(configuration.gamePictures)")
            return
        }
    }

    @Test func aKubernetesServiceLinkIsNotAPort() throws {
        // Set by Kubernetes for a Service named "emojiart" in the same namespace.
        #expect(try ServerConfiguration(environment: ["EMOJIART_PORT": "tcp://10.0.0.7:8080"]).port == 8080)
    }

    @Test func theDataFolderFallsBackToXDGThenHome() throws {
        #expect(try ServerConfiguration(environment: ["XDG_DATA_HOME": "/x"]).dataDirectory == "/x/emojiart")
        #expect(
            try ServerConfiguration(environment: ["HOME": "/home/ada", "EMOJIART_DATA": ""]).dataDirectory
                == "/home/ada/.local/share/emojiart")
    }

    @Test(arguments: [
        ("EMOJIART_PORT", "eighty"), ("EMOJIART_PORT", "70000"), ("EMOJIART_ACCESS", "everyone"),
        ("EMOJIART_SIGNUP", "maybe"), ("EMOJIART_DURABILITY", "extra"), ("EMOJIART_LIVE_MESSAGES_PER_ADDRESS", "0"),
        ("EMOJIART_LIVE_MESSAGES_PER_DOCUMENT", "fast"),
    ])
    func aValueThatCantBeUsedIsRefusedByName(_ variable: String, _ value: String) {
        let error = #expect(throws: ConfigurationError.self) {
            try ServerConfiguration(environment: [variable: value])
        }
        #expect(error?.description.contains("$\(variable)") == true)
    }

    /// `emojiart-sqlite` installs no database driver: a database URL is refused with what to run
    /// instead, before anything is opened.
    @Test func withoutADriverADatabaseURLIsRefused() async throws {
        var configuration = ServerConfiguration()
        configuration.databaseURL = "postgres://emojiart@127.0.0.1:1/emojiart"
        configuration.databaseDriver = nil
        let prepared = #expect(throws: ConfigurationError.self) {
            try configuration.prepareStores(logger: Logger(label: "t"))
        }
        #expect(prepared?.description.contains("--database") == true)
        #expect(prepared?.description.contains("emojiart serve") == true)
        await #expect(throws: ConfigurationError.self) {
            try await configuration.openStores(logger: Logger(label: "t"))
        }
        #expect(configuration.storeDescription == "a database server")
    }

    /// On PostgreSQL the pool is a service of the server's: migrations run before it listens,
    /// and the last compaction on shutdown is written before the pool stops. (A database that
    /// can't be reached: Tests/System/test_site_guard.py, with the real binary.)
    @Test(.enabled(if: TestPostgres.url != nil))
    func onPostgreSQLTheLastCompactionLandsBeforeThePoolStops() async throws {
        let database = try await TestPostgres.freshDatabase()
        var configuration = ServerConfiguration()
        configuration.port = 0
        configuration.databaseURL = database.description + "?sslmode=disable"
        configuration.databaseDriver = .postgreSQL
        // Keep one entry after the snapshot; never compact while running.
        configuration.library.retainedLog = 1
        configuration.library.compactionBatch = 1_000
        configuration.maintenanceInterval = .seconds(3600)
        let app = try await buildApplication(configuration, logger: Logger(label: "pg-services-test"))
        let id = Mutex<String>("")
        try await app.test(.live) { client in
            let api = APIClient(client: client)
            let created = try await api.createDocument(title: "Kept")
            id.withLock { $0 = created }
            for version in 0..<5 {
                #expect(try await api.edit(created, base: version, [addEmoji(x: version)]).status == .ok)
            }
        }
        let opened = try await PostgreSQLDatabase.open(database)
        defer { opened.close() }
        let documentID = try #require(UUID(uuidString: id.withLock { $0 }))
        let stored = try #require(try await SQLDocumentStore(database: opened).loadDocument(id: documentID))
        #expect(stored.snapshot.version == 4)
        #expect(stored.log.map(\.version) == [5])
        #expect(stored.snapshot.document.emojis.count == 4)
    }
}
