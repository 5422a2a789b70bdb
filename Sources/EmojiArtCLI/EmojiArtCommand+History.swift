import ArgumentParser
import EmojiArtKit
import EmojiArtStore
import Foundation

extension EmojiArtCommand {
    /// `emojiart history ID`: a document's versions, from the store `serve` uses.
    struct History: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List a document's versions, newest first, in sessions.",
            discussion: """
                Reads the database `emojiart serve` uses (the same --data folder and $EMOJIART_DATA, \
                or the same --database and $EMOJIART_DATABASE_URL), also while the server runs. \
                A session is a run of one person's changes with no gap of 5 minutes. Times are UTC.
                """)

        @OptionGroup var store: StoreOptions
        @Argument(help: "The document's id (as in its address, /documents/ID).") var id: String
        @Option(help: "How many versions to list (1–10000).") var limit = 50
        @Option(help: "List the versions before this one (the next page).") var before: Int?
        @Flag(help: "Print the page as JSON lines: one object per version.") var json = false

        func validate() throws {
            guard (1...10_000).contains(limit) else { throw ValidationError("--limit must be from 1 to 10000.") }
        }

        func run() async throws {
            guard let documentID = UUID(uuidString: id) else {
                throw CommandFailure("\"\(id.prefix(64))\" is not a document id; ids look like \(UUID().uuidString).")
            }
            let stores = try await store.stores()
            guard let summary = try await stores.documents.listDocuments().first(where: { $0.id == documentID }) else {
                throw CommandFailure("There is no document \(documentID) in this store.")
            }
            let page = try await HistoryReader(store: stores.documents).page(
                of: documentID, before: min(before ?? .max, summary.version + 1), limit: limit)
            var names: [UUID: String] = [:]
            for author in Set(page.entries.compactMap(\.author)) {
                names[author] = try await stores.users.user(id: author)?.name
            }
            func name(_ id: UUID?) -> String? { id.flatMap { names[$0] } }
            if json {
                for entry in page.entries {
                    var line: [String: Any] = [
                        "version": entry.version, "at": Self.iso(entry.date), "actionName": entry.displayName,
                    ]
                    if let author = name(entry.author) { line["author"] = author }
                    let data = try JSONSerialization.data(withJSONObject: line, options: [.sortedKeys])
                    say(String(decoding: data, as: UTF8.self))
                }
                return
            }
            say("\(summary.title) — version \(summary.version)")
            var entries = page.entries[...]
            for session in page.sessions {
                let by = name(session.author).map { " by \($0)" } ?? ""
                say("")
                say(
                    "\(Self.time(session.start))–\(Self.clock(session.end))\(by): \(session.summary) "
                        + "(versions \(session.first)–\(session.last))")
                while let entry = entries.first, entry.version >= session.first {
                    say("  \(String(entry.version).leftPadded(to: 7))  \(Self.clock(entry.date))  \(entry.displayName)")
                    entries = entries.dropFirst()
                }
            }
            if let origin = page.origin {
                say("")
                say(
                    "  \(String(origin.version).leftPadded(to: 7))  \(Self.time(origin.date))  "
                        + (origin.version == 0 ? "Created" : "Oldest kept version"))
            }
            if let next = page.next { say("\nOlder versions: --before \(next)") }
        }

        private static func formatter(_ format: String) -> DateFormatter {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = .gmt
            formatter.dateFormat = format
            return formatter
        }

        static func iso(_ date: Date) -> String { formatter("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'").string(from: date) }
        static func time(_ date: Date) -> String { formatter("yyyy-MM-dd HH:mm:ss").string(from: date) }
        static func clock(_ date: Date) -> String { formatter("HH:mm:ss").string(from: date) }
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}
