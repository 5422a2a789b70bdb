import AsyncHTTPClient
import EmojiArtServer
import EmojiArtStore
import EmojiArtStoreSQLite
import Foundation

/// `emojiart-bench memory` (issue #21, "Memory"): what the server's memory grows by for
///
/// - **an open document**: 10 documents of 1,000 emojis each opened (`GET`, which loads each into
///   the live library with its history and id table), per document;
/// - **an idle live connection**: 10,000 WebSocket connections following one small document,
///   per connection;
/// - **an idle palette connection** and **an idle game connection**: 10,000 WebSocket
///   connections following the palettes, or each with a game not started, per connection — each
///   kind in a server of its own, so none reuses memory another kind's connections freed.
///
/// The server is a real `emojiart serve` (built beside this benchmark) in a process of its own,
/// so its resident memory (`VmRSS`) is the server's alone; the connections are plain sockets
/// from this process that never read (the first message fits in their socket buffer).
enum MemoryBenchmarks {
    static func run(smoke: Bool, into report: inout Report) async throws {
        OpenFileLimit.raise()
        let connectionCount = smoke ? 200 : 10_000
        let (documentCount, emojiCount) = smoke ? (2, 100) : (10, 1_000)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "emojiart-bench-memory-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = try Stores.sqlite(path: folder.appendingPathComponent("emojiart.sqlite").path).documents
        let documents = (0..<documentCount).map { _ in UUID() }
        let generated = try generatedDocument(count: emojiCount)
        for id in documents {
            try await store.createDocument(
                StoredDocument(id: id, document: generated, version: 0, createdAt: Date(), updatedAt: Date()),
                owner: LocalUser.id)
        }
        let server = try await ServerProcess.start(data: folder)
        defer { server.stop() }
        let base = server.base
        let small = try await ServerBenchmarks.createDocument(base, client: .shared)
        let port = try require(URL(string: base)?.port)
        let smallID = try UUID(small)

        // Warm up: the code paths once, so what they first allocate isn't counted.
        let warm = (0..<20).compactMap { _ in RawLiveSocket(port: port, document: smallID) }
        _ = await SnapshotReaders.read(warm, since: .now)
        for socket in warm { socket.close() }
        try await waitForConnections(0, base: base)
        try await Task.sleep(for: .seconds(1))
        let before = try server.residentBytes()

        for id in documents {
            let response = try await HTTPClient.shared.execute(
                HTTPClientRequest(url: "\(base)api/documents/\(id)"), timeout: .seconds(30))
            _ = try await response.body.collect(upTo: 64 * 1024 * 1024)
            guard response.status == .ok else { throw BenchmarkError("opening a document answered \(response.status)") }
        }
        try await Task.sleep(for: .seconds(1))
        let opened = try server.residentBytes()

        var sockets: [RawLiveSocket] = []
        while sockets.count < connectionCount {
            for _ in 0..<min(250, connectionCount - sockets.count) {
                guard let socket = RawLiveSocket(port: port, document: smallID) else {
                    throw BenchmarkError("could not connect (open-file limit?)")
                }
                sockets.append(socket)
            }
            try await waitForConnections(sockets.count, base: base)
        }
        try await Task.sleep(for: .seconds(1))
        let connected = try server.residentBytes()
        for socket in sockets { socket.close() }
        try await waitForConnections(0, base: base)
        // Their descriptors too (closed as each socket goes), before the next kind connects.
        sockets.removeAll()

        let perDocument = Double(opened - before) / Double(documentCount)
        let perConnection = Double(connected - opened) / Double(connectionCount)
        report.add(
            "memory: an open \(emojiCount)-emoji document (\(documentCount) opened)",
            "\(format(perDocument / 1024, 0)) KB each (server RSS \(megabytes(before)) → \(megabytes(opened)))",
            target: "≤ 1 MB")
        report.add(
            "memory: an idle live connection (\(connectionCount) connected)",
            "\(format(perConnection / 1024, 1)) KB each (server RSS \(megabytes(opened)) → \(megabytes(connected)))",
            target: "≤ 20 KB")
        for (path, kind, name) in [
            ("/api/palettes/live", "palettes", "palette"), ("/api/game/live", "game", "game"),
        ] {
            let (idleBefore, idleAfter) = try await idleConnections(
                path: path, kind: kind, count: connectionCount, folder: folder)
            report.add(
                "memory: an idle \(name) connection (\(connectionCount) connected)",
                "\(format(Double(idleAfter - idleBefore) / Double(connectionCount) / 1024, 1)) KB each (server RSS \(megabytes(idleBefore)) → \(megabytes(idleAfter)))",
                target: "≤ 12 KB")
        }
    }

    /// The server's resident memory before and with `count` idle connections to `path`, in a
    /// server of its own on a copy of the data in `folder`.
    private static func idleConnections(path: String, kind: String, count: Int, folder: URL) async throws -> (Int, Int)
    {
        let data = folder.appendingPathComponent(kind)
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
        let server = try await ServerProcess.start(data: data)
        defer { server.stop() }
        let base = server.base
        let port = try require(URL(string: base)?.port)
        // Warm up: the code paths once, so what they first allocate isn't counted.
        let warm = (0..<20).compactMap { _ in RawLiveSocket(port: port, path: path) }
        _ = await SnapshotReaders.read(warm, since: .now)
        for socket in warm { socket.close() }
        try await waitForConnections(0, base: base, kind: kind)
        try await Task.sleep(for: .seconds(1))
        let before = try server.residentBytes()
        var sockets: [RawLiveSocket] = []
        while sockets.count < count {
            for _ in 0..<min(250, count - sockets.count) {
                guard let socket = RawLiveSocket(port: port, path: path) else {
                    throw BenchmarkError("could not connect (open-file limit?)")
                }
                sockets.append(socket)
            }
            try await waitForConnections(sockets.count, base: base, kind: kind)
        }
        try await Task.sleep(for: .seconds(1))
        let connected = try server.residentBytes()
        for socket in sockets { socket.close() }
        try await waitForConnections(0, base: base, kind: kind)
        return (before, connected)
    }

    private static func megabytes(_ bytes: Int) -> String { "\(format(Double(bytes) / 1_048_576, 1)) MB" }

    /// Waits until the server counts `count` live connections of `kind` (its `/metrics`).
    static func waitForConnections(_ count: Int, base: String, kind: String = "document") async throws {
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline {
            let response = try await HTTPClient.shared.execute(
                HTTPClientRequest(url: "\(base)metrics"), timeout: .seconds(30))
            let body = String(buffer: try await response.body.collect(upTo: 16 * 1024 * 1024))
            let line = body.split(separator: "\n").first {
                $0.hasPrefix("emojiart_live_connections{") && $0.contains(#"kind="\#(kind)""#)
            }
            if let value = line?.split(separator: " ").last.flatMap({ Double($0) }), Int(value) == count { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw BenchmarkError("the server did not reach \(count) live \(kind) connections")
    }
}

extension UUID {
    init(_ text: String) throws {
        guard let id = UUID(uuidString: text) else { throw BenchmarkError("not a document id: \(text)") }
        self = id
    }
}

/// `emojiart serve` in a process of its own, on a free loopback port.
final class ServerProcess: Sendable {
    let base: String
    private let process: Process

    private init(process: Process, base: String) {
        self.process = process
        self.base = base
    }

    /// Starts the `emojiart` built beside this benchmark on `data`, once it says where it runs.
    static func start(data: URL) async throws -> ServerProcess {
        let executable = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("emojiart")
        guard FileManager.default.isExecutableFile(atPath: executable.path) else {
            throw BenchmarkError("build emojiart beside emojiart-bench first (scripts/benchmark does)")
        }
        let process = Process()
        process.executableURL = executable
        process.arguments = ["serve", "--port", "0", "--data", data.path]
        var environment = ProcessInfo.processInfo.environment
        environment["EMOJIART_FETCH_PUBLIC"] = "0"
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        // "EmojiArt is running at http://127.0.0.1:PORT/"
        var text = ""
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            let chunk = output.fileHandleForReading.availableData
            guard !chunk.isEmpty else { break }
            text += String(decoding: chunk, as: UTF8.self)
            if let range = text.range(of: #"http://127\.0\.0\.1:[0-9]+/"#, options: .regularExpression) {
                // Keep reading (and dropping) what it prints, so it never blocks on a full pipe.
                output.fileHandleForReading.readabilityHandler = { _ = $0.availableData }
                return ServerProcess(process: process, base: String(text[range]))
            }
        }
        process.terminate()
        throw BenchmarkError("emojiart serve did not start: \(text.suffix(300))")
    }

    /// The server's resident memory, in bytes (`VmRSS` in /proc).
    func residentBytes() throws -> Int {
        let status = try String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8)
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
            let kilobytes = line.split(separator: " ").dropFirst().first.flatMap({ Int($0) })
        else { throw BenchmarkError("no VmRSS for the server") }
        return kilobytes * 1024
    }

    func stop() {
        process.terminate()
        process.waitUntilExit()
    }
}
