import Foundation
import Synchronization

/// The time at the head of each log line, formatted once a second rather than once a line: a
/// busy server writes a line per request, and formatting the time for each (`strftime`, which
/// looks at the time zone file every call) was half of what the line cost.
final class LogClock: Sendable {
    static let shared = LogClock()

    /// One second, written both ways.
    struct Second: Equatable {
        var epoch: Int
        /// `2026-11-26T20:15:04+0000`: local time, as swift-log's `StreamLogHandler` writes it.
        var local: String
        /// `2026-11-26T20:15:04`: UTC, without the zone (``utc(_:milliseconds:)`` adds it).
        var utc: String
    }

    private let cached = Mutex<Second?>(nil)

    /// Now, in local time to the second (``LogFormat/text``).
    func local() -> String { second(Self.now().seconds).local }

    /// Now, in UTC to the millisecond: `2026-11-26T20:15:04.123Z` (``LogFormat/json``).
    func utcMilliseconds() -> String {
        let now = Self.now()
        return Self.utc(second(now.seconds).utc, milliseconds: now.nanoseconds / 1_000_000)
    }

    private func second(_ epoch: Int) -> Second {
        cached.withLock { cached in
            if let cached, cached.epoch == epoch { return cached }
            let second = Self.format(epoch)
            cached = second
            return second
        }
    }

    private static func now() -> (seconds: Int, nanoseconds: Int) {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return (Int(spec.tv_sec), Int(spec.tv_nsec))
    }

    /// `epoch` (seconds since 1970) written both ways.
    static func format(_ epoch: Int) -> Second {
        var time = time_t(epoch)
        var fields = tm()
        localtime_r(&time, &fields)
        let local = formatted(fields, "%Y-%m-%dT%H:%M:%S%z")
        gmtime_r(&time, &fields)
        return Second(epoch: epoch, local: local, utc: formatted(fields, "%Y-%m-%dT%H:%M:%S"))
    }

    /// A UTC second and the milliseconds into it: `…T20:15:04.007Z`.
    static func utc(_ second: String, milliseconds: Int) -> String {
        let digits = String(milliseconds)
        return second + "." + String(repeating: "0", count: max(0, 3 - digits.count)) + digits + "Z"
    }

    private static func formatted(_ fields: tm, _ format: String) -> String {
        var fields = fields
        var buffer = [CChar](repeating: 0, count: 64)
        let count = strftime(&buffer, buffer.count, format, &fields)
        return String(decoding: buffer.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
