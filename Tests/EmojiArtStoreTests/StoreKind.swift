import EmojiArtStore
import EmojiArtStorePostgres
import EmojiArtStoreSQLite
import EmojiArtTestSupport
import Foundation
import GRDB
import Testing

/// Every kind of store the contract suites run against.
enum StoreKind: String, CaseIterable, CustomTestStringConvertible {
    case memory, sqliteFile, postgres

    var testDescription: String { rawValue }

    /// Every kind; PostgreSQL when a server for the tests is given ($EMOJIART_TEST_POSTGRES,
    /// which scripts/test sets after starting a throwaway cluster).
    static var available: [StoreKind] {
        TestPostgres.url == nil ? [.memory, .sqliteFile] : allCases
    }

    /// Fresh, empty stores of this kind, on one database.
    func makeStores() async throws -> Stores {
        switch self {
        case .postgres: return try await TestPostgres.freshStores()
        case .memory: return .inMemory()
        case .sqliteFile:
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("store-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            return try .sqlite(path: folder.appendingPathComponent("test.sqlite").path)
        }
    }

    func makeStore() async throws -> any DocumentStore { try await makeStores().documents }
}
