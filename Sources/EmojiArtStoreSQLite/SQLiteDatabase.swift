import EmojiArtStore
import Foundation
import GRDB

/// The shared SQL (``SQLDatabase``) on an SQLite database, through GRDB.
public struct SQLiteDatabase: SQLDatabase {
    let writer: any DatabaseWriter

    public init(_ writer: any DatabaseWriter) {
        self.writer = writer
    }

    public var dialect: SQLDialect { .sqlite }

    public func read(_ statements: [SQLStatement]) async throws -> [[SQLRow]] {
        let rows = try await writer.read { db in try statements.map { try Self.run($0, in: db) } }
        try Self.checkRequired(statements, rows)
        return rows
    }

    public func write(_ statements: [SQLStatement]) async throws -> [[SQLRow]] {
        do {
            return try await writer.write { db in
                try statements.map { statement in
                    let rows = try Self.run(statement, in: db)
                    // Thrown inside the transaction, so GRDB rolls it back.
                    if rows.isEmpty, let error = statement.errorIfNoRow { throw error }
                    return rows
                }
            }
        } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT {
            switch error.extendedResultCode {
            case .SQLITE_CONSTRAINT_FOREIGNKEY: throw SQLConstraintViolation.foreignKey
            case .SQLITE_CONSTRAINT_UNIQUE, .SQLITE_CONSTRAINT_PRIMARYKEY: throw SQLConstraintViolation.unique
            default: throw error
            }
        }
    }

    /// Runs one statement inside GRDB's transaction: its rows (none for most writes).
    static func run(_ statement: SQLStatement, in db: Database) throws -> [SQLRow] {
        let arguments = StatementArguments(statement.binds.map(\.databaseValue))
        return try Row.fetchAll(db, sql: statement.sql, arguments: arguments).map { row in
            row.databaseValues.map(SQLValue.init)
        }
    }

    private static func checkRequired(_ statements: [SQLStatement], _ rows: [[SQLRow]]) throws {
        for (statement, rows) in zip(statements, rows) where rows.isEmpty {
            if let error = statement.errorIfNoRow { throw error }
        }
    }
}

extension SQLValue {
    var databaseValue: DatabaseValue {
        switch self {
        case .null: .null
        case .integer(let value): value.databaseValue
        case .real(let value): value.databaseValue
        case .text(let value): value.databaseValue
        case .blob(let value): value.databaseValue
        case .uuid(let value): value.uuidString.databaseValue
        }
    }

    init(_ value: DatabaseValue) {
        switch value.storage {
        case .null: self = .null
        case .int64(let number): self = .integer(Int(number))
        case .double(let number): self = .real(number)
        case .string(let text): self = .text(text)
        case .blob(let data): self = .blob(data)
        }
    }
}

extension Database {
    /// Runs a shared statement inside this transaction (documents' own SQL mixing in shared rows).
    func execute(_ statement: SQLStatement) throws {
        _ = try SQLiteDatabase.run(statement, in: self)
    }
}
