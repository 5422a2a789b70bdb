import EmojiArtKit
import Foundation

/// A document's row as the SQL stores keep it: the snapshot as native `.emojiart` bytes, dates
/// in seconds since 1970.
package struct StoredSnapshotRow: Sendable {
    package var snapshot: Data
    package var snapshotVersion: Int
    package var createdAt: Double
    package var updatedAt: Double

    package init(snapshot: Data, snapshotVersion: Int, createdAt: Double, updatedAt: Double) {
        self.snapshot = snapshot
        self.snapshotVersion = snapshotVersion
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    /// The snapshot and the log after it, decoded; damaged bytes are ``StoreError/corrupt(_:)``.
    package func decoded(id: UUID, log: [StoredLogRow]) throws -> (snapshot: StoredDocument, log: [LogEntry]) {
        (try document(id: id), try log.map { try $0.entry(of: id) })
    }

    /// The snapshot, decoded (also a checkpoint's: its date is `updatedAt`).
    package func document(id: UUID) throws -> StoredDocument {
        let decoded: DecodedDocument
        do {
            decoded = try EmojiArtFile.read(Array(snapshot))
        } catch {
            throw StoreError.corrupt("document \(id)'s snapshot at version \(snapshotVersion): \(error)")
        }
        return StoredDocument(
            id: id, document: decoded.document, version: snapshotVersion,
            createdAt: Date(timeIntervalSince1970: createdAt), updatedAt: Date(timeIntervalSince1970: updatedAt))
    }
}

/// A log entry as the SQL stores keep it: the edits encoded, the date in seconds since 1970.
package struct StoredLogRow: Sendable {
    package var version: Int
    package var edits: Data
    package var date: Double
    package var step: String?
    package var requestID: String?
    package var author: UUID?
    package var actionName: String?

    package init(
        version: Int, edits: Data, date: Double, step: String?, requestID: String?, author: UUID?,
        actionName: String?
    ) {
        self.version = version
        self.edits = edits
        self.date = date
        self.step = step
        self.requestID = requestID
        self.author = author
        self.actionName = actionName
    }

    package init(_ entry: LogEntry) {
        self.init(
            version: entry.version, edits: Data(Edit.encodeList(entry.edits)), date: entry.date.timeIntervalSince1970,
            step: entry.step.storedForm, requestID: entry.requestID, author: entry.author,
            actionName: entry.actionName)
    }

    package func entry(of id: UUID) throws -> LogEntry {
        do {
            return LogEntry(
                version: version, edits: try Edit.decodeList(Array(edits)), date: Date(timeIntervalSince1970: date),
                step: LogStep(storedForm: step), requestID: requestID, author: author,
                actionName: actionName)
        } catch {
            throw StoreError.corrupt("document \(id)'s log entry \(version): \(error)")
        }
    }
}
