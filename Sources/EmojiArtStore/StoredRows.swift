import EmojiArtKit
import Foundation

/// A document's snapshot as ``SQLDocumentStore`` keeps it: the snapshot as native `.emojiart` bytes, dates
/// in seconds since 1970.
struct StoredSnapshotRow: Sendable {
    var snapshot: Data
    var snapshotVersion: Int
    var createdAt: Double
    var updatedAt: Double

    /// The snapshot, decoded (also a checkpoint's: its date is `updatedAt`).
    func document(id: UUID) throws -> StoredDocument {
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

/// A log entry as ``SQLDocumentStore`` keeps it: the edits encoded, the date in seconds since 1970.
struct StoredLogRow: Sendable {
    var version: Int
    var edits: Data
    var date: Double
    var step: String?
    var requestID: String?
    var author: UUID?
    var actionName: String?

    func entry(of id: UUID) throws -> LogEntry {
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
