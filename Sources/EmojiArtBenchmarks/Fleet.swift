import AsyncHTTPClient
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Real `emojiart serve` processes on one PostgreSQL database behind nginx running the
/// repository's own configuration (docs/nginx/emojiart.conf), as an operator runs them: what
/// `emojiart-bench fleet` measures. Every process is this machine's; the caller stops them.
final class Fleet: Sendable {
    /// How nginx spreads live windows: the configuration as shipped (a document's windows on one
    /// instance), or with `least_conn` in its `emojiart_live` upstream, as it suggests for a
    /// document with thousands of windows.
    enum Routing: String, Sendable {
        case sticky
        case spread
    }

    /// The address people use: nginx.
    let front: String
    let frontPort: Int
    let instances: [FleetInstance]
    private let nginx: Mutex<Process?>
    let folder: URL

    /// Starts `count` instances on `database` (a `postgres://` URL) and nginx in front of them,
    /// and returns once every instance answers `/api/ready` through its own port.
    init(count: Int, database: String, poolSize: Int, routing: Routing, folder: URL) async throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        self.folder = folder
        frontPort = try freeLoopbackPort()
        front = "http://127.0.0.1:\(frontPort)/"
        var instances: [FleetInstance] = []
        for index in 0..<count {
            instances.append(
                try FleetInstance(
                    index: index, port: try freeLoopbackPort(), folder: folder,
                    environment: [
                        "EMOJIART_DATABASE_URL": "\(database)?sslmode=disable&pool_max_conns=\(poolSize)",
                        "EMOJIART_PUBLIC_URL": "http://127.0.0.1:\(frontPort)",
                        "EMOJIART_FETCH_PUBLIC": "0",
                        // `EMOJIART_BENCH_LOG_LEVEL=debug` for the instances' whole story.
                        "EMOJIART_LOG_LEVEL": ProcessInfo.processInfo.environment["EMOJIART_BENCH_LOG_LEVEL"]
                            ?? "warning",
                        // The benchmark's windows all come from 127.0.0.1: it measures what the
                        // fleet carries, not the per-address and per-document limits.
                        "EMOJIART_LIVE_MESSAGES_PER_ADDRESS": "100000000",
                        "EMOJIART_LIVE_MESSAGES_PER_DOCUMENT": "100000000",
                    ]))
        }
        self.instances = instances
        nginx = Mutex(nil)
        do {
            for instance in instances { try instance.start() }
            for instance in instances { try await instance.waitUntilReady() }
            let started = try Self.startNginx(
                folder: folder, port: frontPort, upstreams: instances.map(\.port), routing: routing)
            nginx.withLock { $0 = started }
            try await waitForAnswer(front + "api/ready", timeout: .seconds(10))
        } catch {
            stop()
            throw error
        }
    }

    func stop() {
        for instance in instances { instance.stop() }
        nginx.withLock { process in
            process?.terminate()
            process?.waitUntilExit()
            process = nil
        }
    }

    /// nginx's CPU seconds so far (its master and workers).
    var nginxCPUSeconds: Double {
        let master = nginx.withLock { $0?.processIdentifier } ?? 0
        return processCPUSeconds(master) + childrenOf(master).map(processCPUSeconds).reduce(0, +)
    }

    /// The repository's configuration, pointed at `upstreams` and listening on `port`, in nginx of
    /// its own (sized for the benchmark's thousands of connections).
    private static func startNginx(folder: URL, port: Int, upstreams: [Int], routing: Routing) throws -> Process {
        let source =
            ProcessInfo.processInfo.environment["EMOJIART_NGINX_CONF"]
            ?? FileManager.default.currentDirectoryPath + "/docs/nginx/emojiart.conf"
        let site = try fleetSite(
            try String(contentsOfFile: source, encoding: .utf8), port: port, upstreams: upstreams, routing: routing)
        try site.write(to: folder.appendingPathComponent("emojiart.conf"), atomically: true, encoding: .utf8)
        let temporary = ["client_body", "proxy", "fastcgi", "uwsgi", "scgi"].map {
            "    \($0)_temp_path \(folder.path)/\($0);\n"
        }.joined()
        let user = geteuid() == 0 ? "user root;\n" : ""
        let main = """
            \(user)daemon off;
            worker_processes auto;
            worker_rlimit_nofile 65536;
            pid \(folder.path)/nginx.pid;
            error_log \(folder.path)/nginx-error.log;
            events { worker_connections 16384; }
            http {
                access_log off;
            \(temporary)    include \(folder.path)/emojiart.conf;
            }

            """
        try main.write(to: folder.appendingPathComponent("nginx.conf"), atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(
            fileURLWithPath: ["/usr/sbin/nginx", "/usr/bin/nginx"].first {
                FileManager.default.isExecutableFile(atPath: $0)
            } ?? "/usr/sbin/nginx")
        process.arguments = ["-p", folder.path, "-c", folder.appendingPathComponent("nginx.conf").path]
        let log = FileHandle(forWritingAtPath: try logFile(folder.appendingPathComponent("nginx.out")))
        process.standardOutput = log
        process.standardError = log
        try process.run()
        return process
    }

    /// docs/nginx/emojiart.conf with its two example upstream lines replaced by one per port, its
    /// `listen` on `port`, and (`spread`) `least_conn` in place of the live upstream's hash.
    static func fleetSite(_ conf: String, port: Int, upstreams: [Int], routing: Routing) throws -> String {
        var lines: [String] = []
        var inLiveUpstream = false
        for line in conf.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if line.hasPrefix("upstream emojiart_live") { inLiveUpstream = true }
            if line.hasPrefix("}") { inLiveUpstream = false }
            if line.contains("server 127.0.0.1:8082") { continue }
            if line.contains("server 127.0.0.1:8081") {
                lines += upstreams.map { line.replacingOccurrences(of: "127.0.0.1:8081", with: "127.0.0.1:\($0)") }
            } else if line.contains("listen 8080;") {
                lines.append(line.replacingOccurrences(of: "listen 8080;", with: "listen 127.0.0.1:\(port);"))
            } else if inLiveUpstream, routing == .spread, line.contains("hash $emojiart_route consistent;") {
                lines.append("    least_conn;")
            } else {
                lines.append(line)
            }
        }
        let site = lines.joined(separator: "\n")
        guard site.contains("listen 127.0.0.1:\(port);"), site.contains("127.0.0.1:\(upstreams[0])"),
            routing == .sticky || site.contains("least_conn;")
        else { throw BenchmarkError("docs/nginx/emojiart.conf no longer has the lines the fleet rewrites") }
        return site
    }
}

/// One `emojiart serve` process of a ``Fleet``: started, killed and started again.
final class FleetInstance: Sendable {
    let index: Int
    let port: Int
    private let environment: [String: String]
    private let folder: URL
    private let process = Mutex<Process?>(nil)
    /// CPU seconds of the processes this instance ran before its current one.
    private let earlierCPU = Mutex<Double>(0)

    init(index: Int, port: Int, folder: URL, environment: [String: String]) throws {
        self.index = index
        self.port = port
        self.folder = folder
        var inherited = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("EMOJIART_") }
        inherited.merge(environment) { $1 }
        inherited["EMOJIART_PORT"] = String(port)
        inherited["EMOJIART_DATA"] = folder.appendingPathComponent("instance-\(index)").path
        self.environment = inherited
    }

    var base: String { "http://127.0.0.1:\(port)/" }

    var processIdentifier: Int32? { process.withLock { $0?.processIdentifier } }

    func start() throws {
        let process = Process()
        process.executableURL = emojiartExecutable()
        process.arguments = ["serve"]
        process.environment = environment
        let log = FileHandle(forWritingAtPath: try logFile(folder.appendingPathComponent("instance-\(index).log")))
        log?.seekToEndOfFile()
        process.standardOutput = log
        process.standardError = log
        try process.run()
        self.process.withLock { $0 = process }
    }

    func waitUntilReady() async throws {
        try await waitForAnswer(base + "api/ready", timeout: .seconds(60))
    }

    /// `kill -9`: no drain, no goodbye.
    func kill() {
        process.withLock { process in
            guard let process else { return }
            let cpu = processCPUSeconds(process.processIdentifier)
            Glibc.kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            earlierCPU.withLock { $0 += cpu }
        }
        process.withLock { $0 = nil }
    }

    /// SIGTERM, then waits for the drain.
    func stop() {
        process.withLock { process in
            guard let process, process.isRunning else { return }
            process.terminate()
            process.waitUntilExit()
        }
    }

    /// CPU seconds this instance has used, over every process it ran.
    var cpuSeconds: Double {
        earlierCPU.withLock { $0 } + (processIdentifier.map(processCPUSeconds) ?? 0)
    }

    /// The live document windows connected to this instance, from its `/metrics`.
    func liveWindows() async throws -> Int {
        var request = HTTPClientRequest(url: base + "metrics")
        request.method = .GET
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
        let text = String(buffer: try await response.body.collect(upTo: 16 * 1024 * 1024))
        let prefix = #"emojiart_live_connections{kind="document"} "#
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix(prefix) }) else { return 0 }
        return Int(Double(line.dropFirst(prefix.count)) ?? 0)
    }
}

/// `$EMOJIART_BIN`, else the `emojiart` beside this program.
func emojiartExecutable() -> URL {
    if let path = ProcessInfo.processInfo.environment["EMOJIART_BIN"], !path.isEmpty {
        return URL(fileURLWithPath: path)
    }
    return URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        .appendingPathComponent("emojiart")
}

/// A port nothing on loopback listens on now.
func freeLoopbackPort() throws -> Int {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(descriptor) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0
        }
    }
    guard bound else { throw BenchmarkError("no free port on 127.0.0.1") }
    return Int(UInt16(bigEndian: address.sin_port))
}

/// Waits until `url` answers 200.
func waitForAnswer(_ url: String, timeout: Duration) async throws {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if let response = try? await HTTPClient.shared.execute(HTTPClientRequest(url: url), timeout: .seconds(2)),
            response.status == .ok
        {
            return
        }
        try await Task.sleep(for: .milliseconds(100))
    }
    throw BenchmarkError("\(url) did not answer within \(timeout)")
}

/// The status `url` answers a GET with.
func httpStatus(_ url: String) async throws -> UInt {
    let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: url), timeout: .seconds(2))
    _ = try? await response.body.collect(upTo: 1024 * 1024)
    return response.status.code
}

/// Creates `file` (empty) if need be and returns its path.
private func logFile(_ file: URL) throws -> String {
    if !FileManager.default.fileExists(atPath: file.path) {
        guard FileManager.default.createFile(atPath: file.path, contents: nil) else {
            throw BenchmarkError("could not create \(file.path)")
        }
    }
    return file.path
}

/// User and system CPU seconds of process `pid` so far (0 once it is gone).
func processCPUSeconds(_ pid: Int32) -> Double {
    guard pid > 0, let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
        let end = stat.lastIndex(of: ")")
    else { return 0 }
    // After the name in parentheses: state is field 3, utime 14, stime 15.
    let fields = stat[stat.index(after: end)...].split(separator: " ")
    guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
    return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
}

/// The processes whose parent is `pid`.
func childrenOf(_ pid: Int32) -> [Int32] {
    guard pid > 0, let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return [] }
    return entries.compactMap { Int32($0) }.filter { child in
        guard let stat = try? String(contentsOfFile: "/proc/\(child)/stat", encoding: .utf8),
            let end = stat.lastIndex(of: ")")
        else { return false }
        let fields = stat[stat.index(after: end)...].split(separator: " ")
        return fields.count > 1 && Int32(fields[1]) == pid
    }
}

/// CPU seconds so far of every process named `name` (all of PostgreSQL's: `postgres`).
func cpuSeconds(ofProcessesNamed name: String) -> Double {
    guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return 0 }
    return entries.compactMap { Int32($0) }.filter { pid in
        (try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8))?.trimmingCharacters(in: .newlines) == name
    }.map(processCPUSeconds).reduce(0, +)
}

/// All CPU seconds this machine has spent busy so far (every core, from /proc/stat).
func machineBusySeconds() -> Double {
    guard let stat = try? String(contentsOfFile: "/proc/stat", encoding: .utf8),
        let line = stat.split(separator: "\n").first
    else { return 0 }
    let ticks = line.split(separator: " ").dropFirst().compactMap { Double($0) }
    guard ticks.count >= 5 else { return 0 }
    // user nice system idle iowait irq softirq steal: all but idle and iowait.
    let busy = ticks.enumerated().filter { $0.offset != 3 && $0.offset != 4 && $0.offset < 8 }.map(\.element)
    return busy.reduce(0, +) / Double(sysconf(Int32(_SC_CLK_TCK)))
}
