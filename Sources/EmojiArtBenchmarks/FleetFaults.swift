import AsyncHTTPClient
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// `emojiart-bench fleet`'s faults: an instance killed, and PostgreSQL stopped and started again,
/// under the hot document's load, with every window reconnecting and resending as the editor does.
extension FleetBenchmarks {
    /// The hot document's windows, each reconnecting (from the last version it saw) whenever its
    /// connection ends, the senders resending what was unanswered.
    struct ReconnectingCrowd {
        let id: String
        let recorder = DeliveryRecorder()
        let senders: [LiveBenchmarkWindow]
        let followers: CrowdFollowers

        init(_ fleet: Fleet, windows: Int, sizes: Sizes) async throws {
            id = try await ServerBenchmarks.createDocument(fleet.front, client: .shared)
            senders = try await openSenders(
                sizes.hotSenders, on: [id], fleet: fleet, recorder: recorder, reconnects: true)
            followers = CrowdFollowers(
                windows: Array(repeating: (try require(UUID(uuidString: id)), 0), count: windows - senders.count),
                first: senders.count, port: fleet.frontPort, recorder: recorder, reconnects: true)
            try await recorder.waitForSnapshots(windows, timeout: .seconds(120))
        }

        func stop() {
            for sender in senders { sender.finish() }
            followers.stop()
        }

        /// Waits (`timeout` at most) until every request sent was acknowledged, resent ones included.
        func waitUntilAnswered(timeout: Duration) async throws {
            let deadline = ContinuousClock.now + timeout
            while recorder.requests.acknowledged < recorder.requests.sent, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
        }
    }

    /// What killing an instance under the hot document's load did.
    struct Failover: CustomStringConvertible {
        var dropped: Int
        var neverBack: Int
        var slowestReturn: Double
        var medianReturn: Double
        var sent: Int
        var acknowledged: Int
        /// Versions the document gained while the edits were sent.
        var applied: Int
        var othersP99: Double
        var failoverSeconds: Int
        var delivered: Double
        var outOfOrder: Int
        var retaken: Int
        var newWindows: Int
        var usage: Usage

        /// Every window back within 5 s, every edit acknowledged and applied once, every change
        /// delivered in order, and the restarted instance serving windows.
        var passed: Bool {
            dropped > 0 && neverBack == 0 && slowestReturn <= 5 && sent == acknowledged && applied == sent
                && delivered >= 1 && outOfOrder == 0 && retaken > 0
        }

        var description: String {
            "dropped \(dropped), never back \(neverBack), slowest \(slowestReturn) s, sent \(sent), acknowledged \(acknowledged), applied \(applied), delivered \(delivered), out of order \(outOfOrder), retaken \(retaken)"
        }
    }

    /// The hot document's load, with every window reconnecting as the editor does; the first
    /// instance is killed with SIGKILL part way, then started again once the edits stop.
    static func failover(_ fleet: Fleet, windows: Int, sizes: Sizes, connections: PostgresConnectionCount)
        async throws -> Failover
    {
        let crowd = try await ReconnectingCrowd(fleet, windows: windows, sizes: sizes)
        defer { crowd.stop() }
        let (id, recorder, senders) = (crowd.id, crowd.recorder, crowd.senders)
        let before = try await documentVersion(id, in: fleet)
        recorder.reset()
        let meter = try await UsageMeter(fleet, connections: connections)
        let victim = fleet.instances[0]
        async let sending = LiveBenchmarks.sendMoves(rate: sizes.hotRate, for: sizes.failoverDuration, from: senders)
        try await Task.sleep(for: sizes.killAfter)
        let killedAt = ContinuousClock.now
        victim.kill()
        _ = await sending
        let usage = try await meter.finish()
        // Every request answered, those sent to the lost instance included (sent again).
        try await crowd.waitUntilAnswered(timeout: sizes.faultTimeout)
        let after = try await documentVersion(id, in: fleet)
        try await recorder.waitForArrivals((after - before) * windows, timeout: sizes.faultTimeout)
        let (dropped, rejoined) = recorder.reconnections
        let returns = dropped.compactMap { rejoined[$0] }.map { seconds($0 - killedAt) }.sorted()
        let failoverSeconds = 5
        let others = recorder.latencies(sentFrom: killedAt, to: killedAt + .seconds(failoverSeconds)) {
            !dropped.contains($0)
        }
        let requests = recorder.requests
        // Started again, the instance takes new windows (nginx sends them where fewest are).
        try victim.start()
        try await victim.waitUntilReady()
        let newcomers = CrowdFollowers(
            count: max(windows / 10, 3), first: windows, port: fleet.frontPort,
            id: try require(UUID(uuidString: id)), recorder: recorder)
        defer { newcomers.stop() }
        try await recorder.waitForSnapshots(windows + newcomers.count, timeout: .seconds(60))
        return Failover(
            dropped: dropped.count, neverBack: dropped.count - returns.count, slowestReturn: returns.last ?? 0,
            medianReturn: percentile(returns, 0.5), sent: requests.sent, acknowledged: requests.acknowledged,
            applied: after - before, othersP99: percentile(others, 0.99), failoverSeconds: failoverSeconds,
            delivered: after == before ? 0 : Double(recorder.arrivalCount) / Double((after - before) * windows),
            outOfOrder: recorder.outOfOrderArrivals, retaken: (try? await victim.liveWindows()) ?? 0,
            newWindows: newcomers.count, usage: usage)
    }

    /// What stopping PostgreSQL under the hot document's load did.
    struct DatabaseRestart: CustomStringConvertible {
        var outage: Double
        /// Seconds from PostgreSQL stopping until every instance's `/api/ready` said 503.
        var allUnready: Double?
        /// Seconds from PostgreSQL answering again until every instance was ready.
        var allReady: Double?
        var sent: Int
        var acknowledged: Int
        var applied: Int
        var delivered: Double
        var outOfOrder: Int
        var dropped: Int
        /// Seconds from PostgreSQL answering again until the last dropped window was back.
        var slowestReturn: Double

        /// Every instance answered 503 and came back by itself; every edit acknowledged and
        /// applied once; every change delivered, in order; every dropped window back within 5 s.
        var passed: Bool {
            allUnready != nil && allReady != nil && sent == acknowledged && applied == sent && delivered >= 1
                && outOfOrder == 0 && slowestReturn <= 5
        }

        var description: String {
            "503 on every instance after \(allUnready.map { format($0, 2) } ?? "never") s, ready \(allReady.map { format($0, 2) } ?? "never") s after PostgreSQL was back; sent \(sent), acknowledged \(acknowledged), applied \(applied), delivered \(format(delivered * 100, 2))%, out of order \(outOfOrder), \(dropped) windows dropped, back ≤ \(format(slowestReturn, 2)) s after PostgreSQL"
        }
    }

    /// The hot document's load while PostgreSQL (`$EMOJIART_TEST_POSTGRES_DATA`, the cluster
    /// scripts/benchmark and scripts/test start) is stopped for `outage`, then started again.
    /// Nil when the cluster is not this benchmark's to stop.
    static func databaseRestart(_ fleet: Fleet, windows: Int, sizes: Sizes) async throws -> DatabaseRestart? {
        guard let data = ProcessInfo.processInfo.environment["EMOJIART_TEST_POSTGRES_DATA"], !data.isEmpty else {
            return nil
        }
        let crowd = try await ReconnectingCrowd(fleet, windows: windows, sizes: sizes)
        defer { crowd.stop() }
        let (id, recorder) = (crowd.id, crowd.recorder)
        let before = try await documentVersion(id, in: fleet)
        recorder.reset()
        let outage = sizes.killAfter
        async let sending = LiveBenchmarks.sendMoves(
            rate: sizes.hotRate, for: sizes.failoverDuration, from: crowd.senders)
        try await Task.sleep(for: sizes.killAfter)
        let stoppedAt = ContinuousClock.now
        try postgres(data, "stop", "-m", "fast")
        let unready = try await untilEveryInstance(fleet, answers: 503, within: .seconds(10))
        try await Task.sleep(until: stoppedAt + outage, clock: .continuous)
        try postgres(data, "start")
        let backAt = ContinuousClock.now
        let ready = try await untilEveryInstance(fleet, answers: 200, within: .seconds(30))
        _ = await sending
        try await crowd.waitUntilAnswered(timeout: sizes.faultTimeout)
        let after = try await documentVersion(id, in: fleet)
        try await recorder.waitForArrivals((after - before) * windows, timeout: sizes.faultTimeout)
        let (dropped, rejoined) = recorder.reconnections
        let requests = recorder.requests
        return DatabaseRestart(
            outage: seconds(outage), allUnready: unready.map { seconds($0 - stoppedAt) },
            allReady: ready.map { seconds($0 - backAt) }, sent: requests.sent, acknowledged: requests.acknowledged,
            applied: after - before,
            delivered: after == before ? 0 : Double(recorder.arrivalCount) / Double((after - before) * windows),
            outOfOrder: recorder.outOfOrderArrivals, dropped: dropped.count,
            slowestReturn: dropped.compactMap { rejoined[$0] }.map { seconds($0 - backAt) }.max() ?? 0)
    }

    /// When every instance's `/api/ready` answered `status` (polled every 50 ms), or nil if one
    /// didn't within `timeout`.
    static func untilEveryInstance(_ fleet: Fleet, answers status: UInt, within timeout: Duration) async throws
        -> ContinuousClock.Instant?
    {
        let deadline = ContinuousClock.now + timeout
        var waiting = fleet.instances
        while !waiting.isEmpty {
            guard ContinuousClock.now < deadline else { return nil }
            var still: [FleetInstance] = []
            for instance in waiting {
                let answer = try? await httpStatus(instance.base + "api/ready")
                if answer != status { still.append(instance) }
            }
            waiting = still
            if !waiting.isEmpty { try await Task.sleep(for: .milliseconds(50)) }
        }
        return .now
    }

    /// `pg_ctl` on the cluster in `data` (as Debian's postgres user when this runs as root, as
    /// scripts/lib.sh made it); `start` reuses the options it was started with.
    static func postgres(_ data: String, _ arguments: String...) throws {
        let tools = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql"))?.sorted().last
        let pgctl = "/usr/lib/postgresql/\(tools ?? "15")/bin/pg_ctl"
        var command = [pgctl, "-D", data, "-w"] + arguments
        if arguments.first == "start" {
            // The options it last ran with (port, socket folder, settings), as `restart` would.
            let options = try String(contentsOfFile: data + "/postmaster.opts", encoding: .utf8)
            let words = options.split(separator: " ").dropFirst().map {
                $0.trimmingCharacters(in: CharacterSet(charactersIn: "\"\n"))
            }
            command += ["-l", data + "/../server.log", "-o", words.joined(separator: " ")]
        }
        if geteuid() == 0 { command = ["/usr/sbin/runuser", "-u", "postgres", "--"] + command }
        // Through the shell, waited for with waitpid: `Process` never saw `pg_ctl start` end
        // (the server it leaves running keeps what Process watches open).
        let line = command.map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(separator: " ")
        let status = system(line + " >/dev/null 2>&1 </dev/null")
        guard status == 0 else {
            throw BenchmarkError("pg_ctl \(arguments.joined(separator: " ")) failed (\(status))")
        }
    }
}
