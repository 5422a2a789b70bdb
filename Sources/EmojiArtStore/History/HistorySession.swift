import EmojiArtKit
import Foundation

/// A run of a document's changes with no gap of ``HistorySession/gap`` or more between them,
/// by one person: what the History panel lists, with a summary ("12 emojis added, 3 moved").
public struct HistorySession: Sendable, Equatable {
    /// Changes further apart than this (5 minutes) are in different sessions.
    public static let gap: TimeInterval = 300

    /// The first and last versions in the session.
    public var first: Int
    public var last: Int
    public var start: Date
    public var end: Date
    /// Who made its changes (nil: from before authors were kept, or tools).
    public var author: UUID?
    public var counts: ChangeCounts

    /// The runs in `entries` (oldest first), oldest first.
    public static func group(_ entries: some Sequence<LogEntry>) -> [HistorySession] {
        var sessions: [HistorySession] = []
        for entry in entries {
            if let session = sessions.last, session.continues(with: entry) {
                sessions[sessions.count - 1].append(entry)
            } else {
                var counts = ChangeCounts()
                counts.add(entry)
                sessions.append(
                    HistorySession(
                        first: entry.version, last: entry.version, start: entry.date, end: entry.date,
                        author: entry.author, counts: counts))
            }
        }
        return sessions
    }

    /// Adds the entry just after the session (``continues(with:)``).
    public mutating func append(_ entry: LogEntry) {
        last = entry.version
        end = entry.date
        counts.add(entry)
    }

    /// Adds the entry just before the session (``continuesBack(to:)``).
    public mutating func prepend(_ entry: LogEntry) {
        first = entry.version
        start = entry.date
        counts.add(entry)
    }

    /// Whether `entry` (the next one after this session) belongs to it.
    public func continues(with entry: LogEntry) -> Bool {
        entry.version > last && entry.date.timeIntervalSince(end) < Self.gap && entry.author == author
    }

    /// Whether `entry`, the one just before this session, belongs to it.
    public func continuesBack(to entry: LogEntry) -> Bool {
        entry.version < first && start.timeIntervalSince(entry.date) < Self.gap && entry.author == author
    }

    public var summary: String { counts.summary }
}

/// What a run of changes did, counted for a summary: emojis added and deleted, distinct emojis
/// moved, resized, turned, replaced, rearranged and locked or unlocked, and the other kinds of change.
public struct ChangeCounts: Sendable, Equatable {
    public var changes = 0
    public var added = 0
    public var deleted = 0
    public var moved = 0
    public var resized = 0
    public var turned = 0
    public var replaced = 0
    public var rearranged = 0
    /// Emojis locked or unlocked.
    public var locked = 0
    public var renamed = 0
    public var backgrounds = 0
    public var undone = 0
    public var redone = 0
    public var restored = 0
    private var movedIDs: Set<Int> = []
    private var resizedIDs: Set<Int> = []
    private var turnedIDs: Set<Int> = []
    private var replacedIDs: Set<Int> = []
    private var rearrangedIDs: Set<Int> = []
    private var lockedIDs: Set<Int> = []

    public init() {}

    public mutating func add(_ entry: LogEntry) {
        changes += 1
        switch entry.step {
        case .undo: undone += 1
        case .redo: redone += 1
        case .perform, .unrecorded:
            for edit in entry.edits { add(edit) }
        }
    }

    private mutating func add(_ edit: Edit) {
        switch edit {
        case .addEmoji: added += 1
        case .paste(let new), .mosaic(let new): added += new.count
        case .duplicate(let ids, _): added += ids.count
        case .restoreEmojis(let placed): added += placed.count
        case .deleteEmojis(let ids): deleted += ids.count
        case .moveEmojis(let ids, _): count(ids, into: &movedIDs, total: &moved)
        case .resizeEmojis(let ids, _): count(ids, into: &resizedIDs, total: &resized)
        case .setEmojiSizes(let sizes): count(sizes.map(\.id), into: &resizedIDs, total: &resized)
        case .rotate(let ids, _): count(ids, into: &turnedIDs, total: &turned)
        case .replaceEmoji(let ids, _): count(ids, into: &replacedIDs, total: &replaced)
        case .setEmojiTexts(let texts): count(texts.map(\.id), into: &replacedIDs, total: &replaced)
        case .reorder(let ids, _): count(ids, into: &rearrangedIDs, total: &rearranged)
        case .setEmojiOrder(let places): count(places.map(\.id), into: &rearrangedIDs, total: &rearranged)
        case .setLocked(let ids, _): count(ids, into: &lockedIDs, total: &locked)
        case .retitle: renamed += 1
        case .setBackground: backgrounds += 1
        case .restoreVersion: restored += 1
        }
    }

    private func count(_ ids: [Int], into seen: inout Set<Int>, total: inout Int) {
        for id in ids where seen.insert(id).inserted { total += 1 }
    }

    /// "12 emojis added, 3 moved, 1 deleted, renamed, 2 undone"; "No changes" for none.
    public var summary: String {
        var parts: [String] = []
        var nounUsed = false
        func emojis(_ count: Int, _ verb: String) {
            guard count > 0 else { return }
            let noun = nounUsed ? "" : (count == 1 ? " emoji" : " emojis")
            nounUsed = true
            parts.append("\(count)\(noun) \(verb)")
        }
        emojis(added, "added")
        emojis(moved, "moved")
        emojis(resized, "resized")
        emojis(turned, "turned")
        emojis(replaced, "replaced")
        emojis(rearranged, "rearranged")
        emojis(locked, "locked or unlocked")
        emojis(deleted, "deleted")
        if renamed > 0 { parts.append(renamed == 1 ? "renamed" : "renamed \(renamed) times") }
        if backgrounds > 0 {
            parts.append(backgrounds == 1 ? "background changed" : "background changed \(backgrounds) times")
        }
        if restored > 0 { parts.append(restored == 1 ? "a version restored" : "\(restored) versions restored") }
        if undone > 0 { parts.append("\(undone) undone") }
        if redone > 0 { parts.append("\(redone) redone") }
        guard let first = parts.first else { return "No changes" }
        parts[0] = first.prefix(1).uppercased() + first.dropFirst()
        return parts.joined(separator: ", ")
    }
}

/// The name a restore's undo step shows: "Restore Version of 14:02" for a version from the
/// same day as `now` in `timeZone`, "… of Nov 20, 14:02" from another day this year, and
/// "… of Nov 20 2025, 14:02" from another year.
public func restoreActionName(for date: Date, now: Date = Date(), timeZone: TimeZone = .gmt) -> String {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = timeZone
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = timeZone
    formatter.dateFormat =
        calendar.isDate(date, inSameDayAs: now)
        ? "HH:mm"
        : calendar.component(.year, from: date) == calendar.component(.year, from: now)
            ? "MMM d, HH:mm" : "MMM d yyyy, HH:mm"
    return "Restore Version of " + formatter.string(from: date)
}
