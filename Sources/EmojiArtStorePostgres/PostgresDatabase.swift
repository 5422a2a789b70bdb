import EmojiArtStore
import Foundation
import Logging
import PostgresNIO

/// The shared SQL (``SQLDatabase``) on PostgreSQL, through postgres-nio's pool of connections.
public struct PostgresDatabase: SQLDatabase {
    let pool: PostgresPool
    var client: PostgresClient { pool.client }
    let logger: Logger

    public var dialect: SQLDialect { .postgres }

    public func read(_ statements: [SQLStatement]) async throws -> [[SQLRow]] {
        if statements.count == 1 {
            try pool.health.check()
            let rows: [SQLRow]
            do {
                rows = try await Self.run(statements[0], on: client, logger: logger)
            } catch {
                throw pool.health.noting(error)
            }
            if rows.isEmpty, let error = statements[0].errorIfNoRow { throw error }
            return [rows]
        }
        return try await write(statements)
    }

    public func write(_ statements: [SQLStatement]) async throws -> [[SQLRow]] {
        try pool.health.check()
        do {
            return try await client.withTransaction(logger: logger) { connection in
                var results: [[SQLRow]] = []
                for statement in statements {
                    let rows = try await Self.run(statement, on: connection, logger: logger)
                    // Thrown inside the transaction, so it is rolled back.
                    if rows.isEmpty, let error = statement.errorIfNoRow { throw error }
                    results.append(rows)
                }
                return results
            }
        } catch let error as PostgresTransactionError {
            throw pool.health.noting(
                Self.translated(error.closureError ?? error.commitError ?? error.beginError ?? error))
        } catch {
            throw pool.health.noting(Self.translated(error))
        }
    }

    static func query(_ statement: SQLStatement) throws -> PostgresQuery {
        var binds = PostgresBindings(capacity: statement.binds.count)
        for value in statement.binds {
            switch value {
            case .null: binds.appendNull()
            case .integer(let number): try binds.append(number)
            case .real(let number): try binds.append(number)
            case .text(let text): try binds.append(text)
            case .blob(let data): try binds.append(data)
            case .uuid(let id): try binds.append(id)
            }
        }
        return PostgresQuery(unsafeSQL: SQLDialect.postgres.render(statement.sql), binds: binds)
    }

    static func run(_ statement: SQLStatement, on client: PostgresClient, logger: Logger) async throws -> [SQLRow] {
        do {
            return try await rows(of: client.query(try query(statement), logger: logger))
        } catch {
            throw translated(error)
        }
    }

    static func run(_ statement: SQLStatement, on connection: PostgresConnection, logger: Logger) async throws
        -> [SQLRow]
    {
        try await rows(of: connection.query(try query(statement), logger: logger))
    }

    private static func rows(of sequence: PostgresRowSequence) async throws -> [SQLRow] {
        var result: [SQLRow] = []
        for try await row in sequence {
            result.append(try row.map(SQLValue.init))
        }
        return result
    }

    /// Constraint violations as ``SQLConstraintViolation``; everything else as it came.
    static func translated(_ error: any Error) -> any Error {
        guard let error = error as? PSQLError, let state = error.serverInfo?[.sqlState] else { return error }
        switch state {
        case "23505": return SQLConstraintViolation.unique
        case "23503": return SQLConstraintViolation.foreignKey
        default: return error
        }
    }
}

extension SQLValue {
    init(_ cell: PostgresCell) throws {
        guard cell.bytes != nil else {
            self = .null
            return
        }
        switch cell.dataType {
        case .int2, .int4, .int8: self = .integer(try cell.decode(Int.self))
        case .float4, .float8, .numeric: self = .real(try cell.decode(Double.self))
        case .bool: self = .integer(try cell.decode(Bool.self) ? 1 : 0)
        case .bytea: self = .blob(try cell.decode(Data.self))
        case .uuid: self = .uuid(try cell.decode(UUID.self))
        default: self = .text(try cell.decode(String.self))
        }
    }
}

/// postgres-nio's pool of connections: run by whoever owns the store (the server's service
/// group), or — for tools and tests — by itself for as long as anything holds it.
final class PostgresPool: Sendable {
    let client: PostgresClient
    /// Whether the database answers: while it doesn't, queries fail at once.
    let health: DatabaseHealth
    private let running: Task<Void, Never>?

    init(_ client: PostgresClient, runsItself: Bool, health: DatabaseHealth) {
        self.client = client
        self.health = health
        running = runsItself ? Task { await client.run() } : nil
    }

    deinit {
        running?.cancel()
    }

    func close() {
        running?.cancel()
    }
}
