import Foundation

/// A value bound to, or read back from, a SQL statement.
public enum SQLValue: Sendable, Hashable {
    case null
    case integer(Int)
    case real(Double)
    case text(String)
    case blob(Data)
    /// SQLite keeps it as text (`uuidString`), PostgreSQL as `uuid`.
    case uuid(UUID)

    public static func optional(_ text: String?) -> SQLValue { text.map(SQLValue.text) ?? .null }
    public static func optional(_ number: Double?) -> SQLValue { number.map(SQLValue.real) ?? .null }

    public var int: Int? {
        switch self {
        case .integer(let value): value
        case .real(let value): Int(exactly: value)
        default: nil
        }
    }

    public var double: Double? {
        switch self {
        case .real(let value): value
        case .integer(let value): Double(value)
        default: nil
        }
    }

    public var string: String? {
        switch self {
        case .text(let value): value
        case .uuid(let value): value.uuidString
        default: nil
        }
    }

    public var data: Data? {
        if case .blob(let value) = self { return value }
        return nil
    }

    public var uuidValue: UUID? {
        switch self {
        case .uuid(let value): value
        case .text(let value): UUID(uuidString: value)
        default: nil
        }
    }
}

/// One row of a result, its columns in the order the statement named them.
public typealias SQLRow = [SQLValue]

/// One statement, written with `?` placeholders, and the values for them.
public struct SQLStatement: Sendable {
    public var sql: String
    public var binds: [SQLValue]
    /// Thrown — and the whole transaction rolled back — when the statement returns no row
    /// (`UPDATE … RETURNING 1` that matched nothing, say); nil when no row is fine.
    public var errorIfNoRow: (any Error & Sendable)?

    public init(_ sql: String, _ binds: [SQLValue] = [], errorIfNoRow: (any Error & Sendable)? = nil) {
        self.sql = sql
        self.binds = binds
        self.errorIfNoRow = errorIfNoRow
    }
}

/// A rule of the schema a write broke; nothing was changed.
public enum SQLConstraintViolation: Error, Sendable, Equatable {
    /// Another row already has this key.
    case unique
    /// The row refers to one that doesn't exist (or is referred to by others).
    case foreignKey
}

/// A SQL database that stores run statements on: SQLite or PostgreSQL. What is stored the same
/// way in both is written once, against this protocol; the differences between the two
/// databases are named in one place, the ``SQLDialect`` (vapor/sql-kit is the model).
public protocol SQLDatabase: Sendable {
    var dialect: SQLDialect { get }

    /// Runs the statements in order in one read-only transaction: the rows of each.
    func read(_ statements: [SQLStatement]) async throws -> [[SQLRow]]

    /// Runs the statements in order in one transaction, all or nothing: the rows of each. A
    /// statement breaking a constraint throws ``SQLConstraintViolation``; one marked
    /// ``SQLStatement/errorIfNoRow`` that returns nothing throws that error. Either way nothing
    /// is changed.
    func write(_ statements: [SQLStatement]) async throws -> [[SQLRow]]

    /// Runs several writes, each all or nothing on its own as ``write(_:)`` would, in as few
    /// commits as the database can: the group commit. One write failing (a constraint, its
    /// ``SQLStatement/errorIfNoRow``) fails only its own result; a failure of the whole (the
    /// database is gone) throws instead.
    func writeEach(_ writes: [[SQLStatement]]) async throws -> [Result<[[SQLRow]], any Error>]

    /// How many gathered writes the database takes at once (``CommitQueue``): 1 where one
    /// writer does everything and a write of many costs one commit (SQLite: one transaction, one
    /// fsync for all); more where writes run on pooled connections side by side (PostgreSQL),
    /// each still carrying whatever gathered while the others were busy.
    var concurrentWrites: Int { get }

    /// The changes other processes commit to this database, where any can (other servers on
    /// PostgreSQL, the command line on an SQLite file); nil for a database no one else opens.
    var changes: (any StoreChangeFeed)? { get }

    /// Messages between the servers sharing this database that are never stored (presence);
    /// nil where no other server can share it.
    var broadcasts: (any InstanceBroadcast)? { get }
}

extension SQLDatabase {
    /// Each write in a transaction of its own, one after another.
    public func writeEach(_ writes: [[SQLStatement]]) async throws -> [Result<[[SQLRow]], any Error>] {
        var results: [Result<[[SQLRow]], any Error>] = []
        for statements in writes {
            do {
                results.append(.success(try await write(statements)))
            } catch let error as StoreError {
                // The database itself failing fails every write.
                if case .unavailable = error { throw error }
                results.append(.failure(error))
            } catch {
                results.append(.failure(error))
            }
        }
        return results
    }

    public var concurrentWrites: Int { 1 }

    public var changes: (any StoreChangeFeed)? { nil }

    public var broadcasts: (any InstanceBroadcast)? { nil }

    /// One read-only statement's rows.
    public func read(_ statement: SQLStatement) async throws -> [SQLRow] {
        try await read([statement]).first ?? []
    }

    /// One statement in a transaction of its own: its rows.
    @discardableResult
    public func write(_ statement: SQLStatement) async throws -> [SQLRow] {
        try await write([statement]).first ?? []
    }
}

/// What differs between the SQL databases: type names, placeholders, and telling other servers
/// about a change. Everything else in the shared SQL is the same text for both.
public struct SQLDialect: Sendable {
    public var name: String
    /// Column types.
    public var uuidType: String
    public var blobType: String
    public var realType: String
    public var integerType: String
    /// Whether placeholders are numbered (`$1, $2…`) rather than `?`.
    public var numbersPlaceholders: Bool
    /// The statement that tells the other servers on the database about a change, inside the
    /// transaction that makes it, so they hear of it if and only if it commits; nil where no
    /// other server can share the database.
    public var announce: (@Sendable (StoreChange) -> SQLStatement)?
    /// Whether a `WITH` may hold `UPDATE`s and `INSERT`s (PostgreSQL; not SQLite): then a log
    /// append is one statement (``SQLDocumentStore/append(_:)``).
    public var writesInWith: Bool
    /// Whether a row keeps its large values in it (SQLite: a document's snapshot), so reading a
    /// column stored after one walks all its pages: the document list is then read through
    /// covering indexes (shared migration 10), named in its SQL (SQLite's `INDEXED BY`).
    /// PostgreSQL keeps large values aside (TOAST) and needs neither.
    public var keepsLargeValuesInRow: Bool

    public init(
        name: String, uuidType: String, blobType: String, realType: String, integerType: String,
        numbersPlaceholders: Bool, announce: (@Sendable (StoreChange) -> SQLStatement)?, writesInWith: Bool = false,
        keepsLargeValuesInRow: Bool = false
    ) {
        self.name = name
        self.uuidType = uuidType
        self.blobType = blobType
        self.realType = realType
        self.integerType = integerType
        self.numbersPlaceholders = numbersPlaceholders
        self.announce = announce
        self.writesInWith = writesInWith
        self.keepsLargeValuesInRow = keepsLargeValuesInRow
    }

    public static let sqlite = SQLDialect(
        name: "sqlite", uuidType: "TEXT", blobType: "BLOB", realType: "REAL", integerType: "INTEGER",
        numbersPlaceholders: false, announce: nil, keepsLargeValuesInRow: true)

    /// The channel PostgreSQL announces changes on (`NOTIFY`).
    public static let postgresChannel = "emojiart_changes"

    public static let postgres = SQLDialect(
        name: "postgres", uuidType: "uuid", blobType: "bytea", realType: "double precision", integerType: "bigint",
        numbersPlaceholders: true,
        announce: { change in SQLStatement("SELECT pg_notify(?, ?)", [.text(postgresChannel), .text(change.payload)]) },
        writesInWith: true)

    /// `sql` as this database takes it: `?` numbered where it wants `$n` (outside quotes).
    public func render(_ sql: String) -> String {
        guard numbersPlaceholders else { return sql }
        var result = ""
        result.reserveCapacity(sql.utf8.count + 8)
        var number = 0
        var quoted = false
        for character in sql {
            if character == "'" { quoted.toggle() }
            if character == "?", !quoted {
                number += 1
                result += "$\(number)"
            } else {
                result.append(character)
            }
        }
        return result
    }

    /// The statements that make writers of the same `key` take turns, first in a transaction,
    /// until it ends: PostgreSQL's transaction-level advisory lock; none on SQLite, whose writes
    /// already take turns.
    public func serializing(_ key: String) -> [SQLStatement] {
        guard name == SQLDialect.postgres.name else { return [] }
        return [SQLStatement("SELECT 1 FROM (SELECT pg_advisory_xact_lock(hashtext(?))) AS held", [.text(key)])]
    }

    /// The statements that announce `change`, if this database can.
    func announcing(_ change: StoreChange) -> [SQLStatement] {
        announce.map { [$0(change)] } ?? []
    }
}
