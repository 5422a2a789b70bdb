import CAllocationStats
import EmojiArtKit
import Foundation

/// `emojiart-bench`: measures the core's figures quoted in docs/PERFORMANCE.md.
///
/// Run it in release: `swift run -c release emojiart-bench` (or `scripts/benchmark`).
/// `server` measures the server over HTTP and WebSockets instead (`live`: only the WebSockets;
/// `crowd`: a thousand windows on one document;
/// `instances`: two servers on one PostgreSQL database; `presence`: pointers between windows on
/// two servers; `history`: reading past versions and
/// what history costs in each database; `listing`: one person's document list as the
/// installation grows to a million documents; `fleet`: three `emojiart serve` processes behind
/// nginx on one PostgreSQL database, thousands of windows; `emoji`: the server's emoji search; `mosaic`: emoji mosaics
/// of photos, their speed and picture error).
/// `--smoke` runs every measurement on tiny inputs, to check the benchmark still works.
@main
enum BenchmarkMain {
    static func main() async throws {
        let smoke = CommandLine.arguments.contains("--smoke")
        let scale = Scale(smoke: smoke)
        var report = Report()
        if CommandLine.arguments.contains("instances") {
            try await InstanceBenchmarks.run(smoke: smoke, into: &report)
            report.print()
            return
        }
        if CommandLine.arguments.contains("presence") {
            try await PresenceBenchmarks.run(smoke: smoke, into: &report)
            report.print()
            return
        }
        if CommandLine.arguments.contains("fleet") {
            try await FleetBenchmarks.run(smoke: smoke, into: &report)
            report.print()
            return
        }
        if CommandLine.arguments.contains("listing") {
            try await ListingBenchmarks.run(smoke: smoke, into: &report)
            report.print()
            return
        }
        if CommandLine.arguments.contains("history") {
            try await HistoryBenchmarks.run(smoke: smoke, into: &report)
            report.print()
            return
        }
        if CommandLine.arguments.contains("emoji") {
            try EmojiSearchBenchmarks.run(smoke: smoke, into: &report)
            report.print()
            return
        }
        if CommandLine.arguments.contains("mosaic") {
            try MosaicBenchmarks.run(smoke: smoke, into: &report)
            report.print()
            return
        }
        if CommandLine.arguments.contains("memory") {
            try await MemoryBenchmarks.run(smoke: smoke, into: &report)
            report.print()
            return
        }
        if CommandLine.arguments.contains("stalls") {
            try await StallBenchmarks.run(smoke: smoke, into: &report)
            report.print()
            return
        }
        if CommandLine.arguments.contains("crowd") {
            try await CrowdBenchmarks.run(smoke: smoke, into: &report)
            report.print()
            return
        }
        if CommandLine.arguments.contains("live") {
            try await LiveBenchmarks.run(smoke: smoke, into: &report)
            report.print()
            return
        }
        if CommandLine.arguments.contains("server") {
            try await ServerBenchmarks.run(smoke: smoke, into: &report)
            try await BackgroundBenchmarks.run(smoke: smoke, into: &report)
            try await LiveBenchmarks.run(smoke: smoke, into: &report)
            report.print()
            return
        }
        #if DEBUG
            if !smoke { print("warning: a debug build; run `swift run -c release emojiart-bench` for real figures.") }
        #endif
        print(
            "emojiart-bench: \(scale.emojiCount)-emoji document, \(ProcessInfo.processInfo.activeProcessorCount) cores")
        try FileBenchmarks.run(scale: scale, into: &report)
        try EditBenchmarks.run(scale: scale, into: &report)
        try WireBenchmarks.run(scale: scale, into: &report)
        try UndoMemoryBenchmark.run(scale: scale, into: &report)
        try RenderBenchmarks.run(smoke: smoke, into: &report)
        report.print()
    }
}

/// How big each benchmark's inputs are.
struct Scale {
    var emojiCount: Int
    var editCount: Int
    var repetitions: Int
    var undoSteps: Int

    init(smoke: Bool) {
        emojiCount = smoke ? 100 : 10_000
        editCount = smoke ? 1_000 : 100_000
        repetitions = smoke ? 3 : 30
        undoSteps = smoke ? 10 : 1_000
    }
}

/// Figures with their units and targets, printed as a table.
struct Report {
    struct Row {
        var name: String
        var value: String
        var target: String
    }

    var rows: [Row] = []

    mutating func add(_ name: String, _ value: String, target: String = "") {
        rows.append(Row(name: name, value: value, target: target))
    }

    func print() {
        let nameWidth = rows.map(\.name.count).max() ?? 0
        let valueWidth = rows.map(\.value.count).max() ?? 0
        Swift.print("")
        for row in rows {
            let name = row.name.padding(toLength: nameWidth, withPad: " ", startingAt: 0)
            let value = row.value.padding(toLength: valueWidth, withPad: " ", startingAt: 0)
            Swift.print("\(name)  \(value)  \(row.target.isEmpty ? "" : "target: \(row.target)")")
        }
    }
}

/// Runs `body` `repetitions` times and returns the median wall time in seconds.
func medianSeconds(repetitions: Int, _ body: () throws -> Void) rethrows -> Double {
    var times: [Double] = []
    for _ in 0..<repetitions {
        let start = ContinuousClock.now
        try body()
        let elapsed = ContinuousClock.now - start
        times.append(Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18)
    }
    return times.sorted()[times.count / 2]
}

func format(_ value: Double, _ digits: Int = 2) -> String {
    String(format: "%.\(digits)f", value)
}

/// A document of `count` emojis of varied kinds, spread over the canvas, with a URL background.
func generatedDocument(count: Int) throws -> EmojiArtDocument {
    var random = SplitMix64(seed: 2026)
    let texts = ["😀", "🚚", "👨‍👩‍👧‍👦", "🇫🇷", "👍🏽", "☀️", "🐻‍❄️", "1️⃣", "🌲", "🎹"]
    let emojis = (0..<count).map { index in
        Emoji(
            id: index + 1, text: texts.randomElement(using: &random)!,
            position: Point(
                x: Int.random(in: -5000...5000, using: &random), y: Int.random(in: -5000...5000, using: &random)),
            size: Int.random(in: 12...200, using: &random))
    }
    return try EmojiArtDocument(
        title: "Benchmark", background: .url(URL(string: "https://example.com/background.png")!), emojis: emojis,
        nextEmojiID: count + 1)
}

enum FileBenchmarks {
    static func run(scale: Scale, into report: inout Report) throws {
        let document = try generatedDocument(count: scale.emojiCount)
        let bytes = EmojiArtFile.write(document, as: .native).bytes
        let megabytes = Double(bytes.count) / 1_000_000
        var decoded: EmojiArtDocument?
        let decode = try medianSeconds(repetitions: scale.repetitions) {
            decoded = try EmojiArtFile.read(bytes).document
        }
        guard decoded == document else { throw BenchmarkError("the decoded document differs from the original") }
        // The same document in the original app's 2023 format goes through the general reader
        // (a JSON tree, then the document), which the native fast path skips.
        let original = EmojiArtFile.write(document, as: .cs193p2023).bytes
        let originalDecode = try medianSeconds(repetitions: scale.repetitions) {
            decoded = try EmojiArtFile.read(original).document
        }
        guard decoded?.emojis == document.emojis else { throw BenchmarkError("the 2023 file reads otherwise") }
        var encodedCount = 0
        let encode = medianSeconds(repetitions: scale.repetitions) {
            encodedCount = EmojiArtFile.write(document, as: .native).bytes.count
        }
        guard encodedCount == bytes.count else { throw BenchmarkError("encoding is not stable") }
        report.add("file size (native)", "\(format(megabytes, 3)) MB")
        report.add(
            "native decode", "\(format(decode * 1000)) ms (\(format(megabytes / decode, 0)) MB/s)",
            target: "≤ 25 ms, ≥ 150 MB/s")
        let originalMegabytes = Double(original.count) / 1_000_000
        report.add(
            "CS193P 2023 decode (general reader)",
            "\(format(originalDecode * 1000)) ms (\(format(originalMegabytes / originalDecode, 0)) MB/s)")
        report.add(
            "native encode", "\(format(encode * 1000)) ms (\(format(megabytes / encode, 0)) MB/s)", target: "≤ 25 ms")
    }
}

enum EditBenchmarks {
    static func run(scale: Scale, into report: inout Report) throws {
        let start = try generatedDocument(count: scale.emojiCount)
        var random = SplitMix64(seed: 7)
        let ids = start.emojis.ids

        // Moves straight on the document: the core's cost per edit.
        let moves: [Edit] = (0..<scale.editCount).map { _ in
            .moveEmojis(
                ids: [ids.randomElement(using: &random)!],
                offset: Point(x: Int.random(in: -3...3, using: &random), y: Int.random(in: -3...3, using: &random)))
        }
        var document = start
        let applyMoves = try medianSeconds(repetitions: 3) {
            document = start
            for edit in moves { try document.apply(edit) }
        }
        report.add(
            "\(scale.editCount) moves, apply", "\(format(Double(moves.count) / applyMoves / 1000, 0))k edits/s",
            target: "≥ 500k edits/s")

        // The same moves through the undo history (1,000-step limit), as the server will.
        let performMoves = try medianSeconds(repetitions: 3) {
            var session = EditingSession(document: start)
            for edit in moves { try session.perform(edit) }
        }
        report.add(
            "\(scale.editCount) moves, with undo history",
            "\(format(Double(moves.count) / performMoves / 1000, 0))k edits/s")

        // A random mix of every kind, generated against the live document so most apply.
        var session = EditingSession(document: start)
        var mixRandom = SplitMix64(seed: 11)
        var rejected = 0
        let mixStart = ContinuousClock.now
        for _ in 0..<scale.editCount {
            let edit = randomEdit(in: session.document, using: &mixRandom)
            do { try session.perform(edit) } catch { rejected += 1 }
        }
        let mixElapsed = ContinuousClock.now - mixStart
        let mixSeconds = Double(mixElapsed.components.seconds) + Double(mixElapsed.components.attoseconds) * 1e-18
        report.add(
            "\(scale.editCount) random edits (all kinds)",
            "\(format(Double(scale.editCount) / mixSeconds / 1000, 0))k edits/s (\(rejected) rejected as invalid)")
    }

    static func randomEdit(in document: EmojiArtDocument, using random: inout SplitMix64) -> Edit {
        let count = document.emojis.count
        let id = count > 0 ? document.emojis[Int.random(in: 0..<count, using: &random)].id : 1
        switch Int.random(in: 0..<100, using: &random) {
        case 0..<50: return .moveEmojis(ids: [id], offset: Point(x: 5, y: -5))
        case 50..<70: return .resizeEmojis(ids: [id], scale: Double.random(in: 0.8...1.25, using: &random))
        case 70..<82: return .addEmoji(text: "🚀", position: Point(x: 10, y: 10), size: 40)
        case 82..<94: return .deleteEmojis(ids: [id])
        case 94..<97: return .retitle("Title \(Int.random(in: 0..<10, using: &random))")
        default: return .setBackground(.url(URL(string: "https://example.com/\(id).png")!))
        }
    }
}

enum UndoMemoryBenchmark {
    static func run(scale: Scale, into report: inout Report) throws {
        let document = try generatedDocument(count: scale.emojiCount)
        let ids = document.emojis.ids
        var session = EditingSession(document: document, undoLimit: scale.undoSteps)
        // Touch the document once so its copy-on-write storage is not counted as history.
        try session.perform(.moveEmojis(ids: [ids[0]], offset: Point(x: 1, y: 1)))
        session = EditingSession(document: session.document, undoLimit: scale.undoSteps + 1)
        let before = allocation_stats_bytes_in_use()
        for step in 0..<scale.undoSteps {
            try session.perform(.moveEmojis(ids: [ids[step % ids.count]], offset: Point(x: 1, y: 0)))
        }
        let after = allocation_stats_bytes_in_use()
        if CommandLine.arguments.contains("--verbose") { print("allocated bytes before \(before), after \(after)") }
        guard session.history.undoSteps.count == scale.undoSteps else {
            throw BenchmarkError("expected \(scale.undoSteps) undo steps")
        }
        let perStep = Double(Int(after) - Int(before)) / Double(scale.undoSteps)
        report.add(
            "undo memory, \(scale.undoSteps) move steps", "\(format(perStep, 0)) bytes/step", target: "≤ 200 bytes/step"
        )
    }
}

struct BenchmarkError: Error, CustomStringConvertible {
    var description: String

    init(_ description: String) {
        self.description = description
    }
}
