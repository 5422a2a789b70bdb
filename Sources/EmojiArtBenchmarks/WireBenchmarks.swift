import EmojiArtKit
import EmojiArtLive
import EmojiArtWire
import Foundation

/// Bytes on the wire for moving a selection (issue #21): the edit the editor sends and the
/// `change` every window receives, for 10, 1,000 and 10,000 selected emojis — and, for
/// comparison, the change as it was before moves were sent as ids and an offset (each emoji's
/// whole state in `updated`).
enum WireBenchmarks {
    static func run(scale: Scale, into report: inout Report) throws {
        let counts = scale.emojiCount >= 10_000 ? [10, 1_000, 10_000] : [10, scale.emojiCount]
        let document = try generatedDocument(count: counts.max()!)
        for count in counts {
            let ids = Array(document.emojis.ids.prefix(count))
            let edit = Edit.moveEmojis(ids: ids, offset: Point(x: 12, y: -5))
            var after = document
            _ = try after.apply(edit)
            let editBytes = Edit.encodeList([edit]).count
            let patch = DocumentPatch(edits: [edit], firstNewID: document.nextEmojiID, after: after)
            let changeBytes = LiveMessages.change(change(patch)).utf8.count
            let old = DocumentPatch(updated: ids.compactMap { after.emojis[id: $0] }, nextEmojiID: after.nextEmojiID)
            let oldBytes = LiveMessages.change(change(old)).utf8.count
            report.add(
                "move \(count) selected emojis: bytes",
                "edit \(editBytes) B, change \(changeBytes) B (each emoji's state: \(oldBytes) B)",
                target: count == 10_000 ? "independent of the count" : "")
        }
    }

    private static func change(_ patch: DocumentPatch) -> LiveChange {
        LiveChange(
            version: 1_234, patch: patch, undoActionName: "Move", redoActionName: nil,
            updatedAt: Date(timeIntervalSince1970: 1_800_000_000))
    }
}
