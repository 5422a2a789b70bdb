import EmojiArtKit
import EmojiArtLive
import EmojiArtTestSupport
import EmojiArtWire
import Foundation
import Testing

/// Replays the live fuzz test's messages through the editor's own `applyChange` (live.js) in
/// headless Chromium, so the code that ships is the code that is fuzzed: every window's
/// messages, exactly as the server writes them, must bring the browser's copy to the server's
/// final state; and patches made to fit or not fit (probes) must be applied or refused by the
/// browser exactly as `DocumentPatch.apply` applies or refuses them.
enum ChromiumReplay {
    /// One seed's run.
    struct Run: Encodable {
        var seed: UInt64
        /// Each window's messages, in the order it took them: snapshots and changes.
        var windows: [[String]]
        /// The server's final state, as a `snapshot` message.
        var expected: String
        var probes: [Probe]
    }

    /// A patch tried on a state: `after` is the server's result as a `snapshot` message, or nil
    /// where `DocumentPatch.apply` refuses it.
    struct Probe: Encodable {
        var before: String
        var change: String
        var after: String?
    }

    /// Patches for `state`, random and hand-made, some that fit and many that don't: inserted
    /// ids already there or twice, indexes before the start or past the end, updated ids
    /// missing, removals of ids the copy lacks.
    static func probes(for state: LiveDocumentState, using random: inout SplitMix64) -> [Probe] {
        let document = state.document
        let ids = document.emojis.ids
        let next = document.nextEmojiID
        func emoji(_ id: Int) -> Emoji {
            Emoji(id: id, text: "🐝", position: Point(x: id, y: -id), size: 10 + id % 50)
        }
        func someID() -> Int {
            Bool.random(using: &random) && !ids.isEmpty
                ? ids[Int.random(in: 0..<ids.count, using: &random)] : Int.random(in: 0...(next + 3), using: &random)
        }
        var patches: [DocumentPatch] = [
            DocumentPatch(
                inserted: [PlacedEmoji(index: document.emojis.count, emoji: emoji(next))], nextEmojiID: next + 1),
            DocumentPatch(
                inserted: [PlacedEmoji(index: document.emojis.count + 1, emoji: emoji(next))], nextEmojiID: next + 1),
            DocumentPatch(inserted: [PlacedEmoji(index: -1, emoji: emoji(next))], nextEmojiID: next + 1),
            DocumentPatch(updated: [emoji(next + 5)], nextEmojiID: next),
            DocumentPatch(removedIDs: [next + 7], nextEmojiID: next),
            DocumentPatch(moved: [MovedEmojis(ids: [next + 9], offset: Point(x: 1, y: 1))], nextEmojiID: next),
        ]
        if ids.count >= 3 {
            // Two groups, and a group with one id the copy lacks.
            let sorted = ids.sorted()
            patches += [
                DocumentPatch(
                    moved: [
                        MovedEmojis(ids: Array(sorted.prefix(2)), offset: Point(x: 2, y: -3)),
                        MovedEmojis(ids: [sorted[2]], offset: Point(x: -7, y: 0)),
                    ], nextEmojiID: next),
                DocumentPatch(
                    moved: [MovedEmojis(ids: [sorted[0], next + 11], offset: Point(x: 1, y: 0))], nextEmojiID: next),
            ]
        }
        if let first = ids.first {
            patches += [
                DocumentPatch(inserted: [PlacedEmoji(index: 0, emoji: emoji(first))], nextEmojiID: next),
                DocumentPatch(
                    removedIDs: [first], inserted: [PlacedEmoji(index: 0, emoji: emoji(first))], nextEmojiID: next),
                DocumentPatch(updated: [emoji(first), emoji(first)], nextEmojiID: next),
            ]
        }
        for _ in 0..<12 {
            var removed: [Int] = []
            var inserted: [PlacedEmoji] = []
            var updated: [Emoji] = []
            for _ in 0..<Int.random(in: 0...2, using: &random) { removed.append(someID()) }
            for _ in 0..<Int.random(in: 0...2, using: &random) {
                let index = Int.random(in: -1...(document.emojis.count + 2), using: &random)
                inserted.append(
                    PlacedEmoji(
                        index: index, emoji: emoji(Bool.random(using: &random) ? next + inserted.count : someID())))
            }
            inserted.sort { $0.index < $1.index }
            for _ in 0..<Int.random(in: 0...2, using: &random) { updated.append(emoji(someID())) }
            let movedIDs = Set((0..<Int.random(in: 0...3, using: &random)).map { _ in someID() })
            let moved =
                movedIDs.isEmpty
                ? []
                : [MovedEmojis(ids: movedIDs.sorted(), offset: Point(x: Int.random(in: -9...9, using: &random), y: 4))]
            patches.append(
                DocumentPatch(
                    removedIDs: removed, inserted: inserted, updated: updated, moved: moved,
                    nextEmojiID: next + inserted.count))
        }
        let before = LiveMessages.snapshot(state)
        return patches.map { patch in
            var after = state
            after.version += 1
            let change = LiveChange(
                version: after.version, patch: patch, undoActionName: nil, redoActionName: nil,
                updatedAt: state.updatedAt)
            do {
                try patch.apply(to: &after.document)
                return Probe(before: before, change: LiveMessages.change(change), after: LiveMessages.snapshot(after))
            } catch {
                return Probe(before: before, change: LiveMessages.change(change), after: nil)
            }
        }
    }

    /// What the page reports.
    struct Outcome: Decodable {
        var changes: Int
        var probes: Int
        var failures: [String]
    }

    /// Runs `runs` in Chromium (`CHROMIUM`, else /usr/bin/chromium; `scripts/test` installs it).
    static func replay(_ runs: [Run]) throws -> Outcome {
        let chromium = ProcessInfo.processInfo.environment["CHROMIUM"] ?? "/usr/bin/chromium"
        guard FileManager.default.isExecutableFile(atPath: chromium) else {
            throw EmojiArtError(.invalidFile, "no Chromium at \(chromium): scripts/test installs it (or set CHROMIUM).")
        }
        let here = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("emojiart-replay-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let liveJS = here.appendingPathComponent("../../Sources/EmojiArtWeb/Public/js/live.js").standardized
        try FileManager.default.copyItem(at: liveJS, to: folder.appendingPathComponent("live.js"))
        try FileManager.default.copyItem(
            at: here.appendingPathComponent("Replay/replay.html"), to: folder.appendingPathComponent("replay.html"))
        let trace = "window.trace = " + String(decoding: try JSONEncoder().encode(runs), as: UTF8.self) + ";\n"
        try Data(trace.utf8).write(to: folder.appendingPathComponent("trace.js"))

        let process = Process()
        process.executableURL = URL(fileURLWithPath: chromium)
        process.arguments = [
            "--headless", "--no-sandbox", "--disable-gpu", "--allow-file-access-from-files",
            "--user-data-dir=\(folder.appendingPathComponent("profile").path)", "--dump-dom",
            folder.appendingPathComponent("replay.html").absoluteString,
        ]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        // A Chromium that hangs is stopped: the page then has no result, which fails the test.
        let watchdog = DispatchWorkItem { if process.isRunning { process.terminate() } }
        DispatchQueue.global().asyncAfter(deadline: .now() + 120, execute: watchdog)
        let dom = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        watchdog.cancel()
        guard let start = dom.range(of: "<pre id=\"result\">"),
            let end = dom.range(of: "</pre>", range: start.upperBound..<dom.endIndex)
        else { throw EmojiArtError(.invalidFile, "Chromium printed no result: \(dom.prefix(500))") }
        let text = String(dom[start.upperBound..<end.lowerBound])
            .replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&lt;", with: "<")
            .replacingOccurrences(of: "&gt;", with: ">").replacingOccurrences(of: "&amp;", with: "&")
        guard let outcome = try? JSONDecoder().decode(Outcome.self, from: Data(text.utf8)) else {
            throw EmojiArtError(.invalidFile, "the replay page said: \(text.prefix(500))")
        }
        return outcome
    }
}
