import EmojiArtStore
import Logging
import PostgresNIO
import Synchronization
import Testing

@testable import EmojiArtStorePostgres

@Suite("PostgreSQL's health: fail fast while it is away, recover by itself")
struct DatabaseHealthTests {
    @Test func failuresToReachTheDatabaseAreToldFromOtherErrors() {
        #expect(DatabaseHealth.connectionFailure(ChannelError.ioOnClosedChannel) != nil)
        #expect(DatabaseHealth.connectionFailure(ChannelError.connectTimeout(.seconds(1))) != nil)
        #expect(DatabaseHealth.connectionFailure(IOError(errnoCode: 111, reason: "connect")) != nil)
        #expect(DatabaseHealth.connectionFailure(StoreError.versionConflict(id: .init(), expected: 2)) == nil)
        #expect(DatabaseHealth.connectionFailure(SQLConstraintViolation.unique) == nil)
    }

    @Test func whileDownEveryQueryFailsAtOnceUntilTheProbeAnswers() async throws {
        let answers = Mutex(false)
        let health = DatabaseHealth(logger: Logger(label: "test")) {
            guard answers.withLock({ $0 }) else { throw ChannelError.connectTimeout(.seconds(1)) }
        }
        try health.check()
        let noted = health.noting(ChannelError.ioOnClosedChannel)
        guard case StoreError.unavailable = noted else {
            Issue.record("expected unavailable, got \(noted)")
            return
        }
        #expect(throws: StoreError.self) { try health.check() }
        try await Task.sleep(for: DatabaseHealth.probeInterval * 3)
        #expect(!health.isUp, "the probe fails while the database is away")
        answers.withLock { $0 = true }
        for _ in 0..<40 where !health.isUp { try await Task.sleep(for: .milliseconds(50)) }
        #expect(health.isUp)
        try health.check()
        // Other errors leave it up.
        _ = health.noting(SQLConstraintViolation.unique)
        #expect(health.isUp)
    }
}
