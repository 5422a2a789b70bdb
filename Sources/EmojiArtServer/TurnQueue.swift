import Foundation

/// One turn at a time per subject. Sign-ins queue per name and client address: attempts sent
/// together wait in line, so each one sees the failures of those before it and the throttle
/// can't be outrun by sending many at once. Replays queue on one subject, so animated pictures
/// (seconds of drawing each) can't take every core. A line longer than ``maximumWaiting`` is
/// refused outright, so neither guessing nor drawing can pile up work.
actor TurnQueue {
    static let maximumWaiting = 16

    private var busy: Set<String> = []
    private var waiting: [String: [CheckedContinuation<Void, Never>]] = [:]

    /// Runs `body` holding every subject (taken in a fixed order, so two attempts can't wait on
    /// each other); nil when a line is already too long.
    func withTurn<T: Sendable>(_ subjects: [String], _ body: @Sendable () async throws -> T) async throws -> T? {
        let ordered = Array(Set(subjects)).sorted()
        guard ordered.allSatisfy({ (waiting[$0]?.count ?? 0) < Self.maximumWaiting }) else { return nil }
        for subject in ordered { await take(subject) }
        defer { for subject in ordered { give(subject) } }
        return try await body()
    }

    private func take(_ subject: String) async {
        guard busy.contains(subject) else {
            busy.insert(subject)
            return
        }
        await withCheckedContinuation { waiting[subject, default: []].append($0) }
    }

    private func give(_ subject: String) {
        guard var line = waiting[subject], !line.isEmpty else {
            busy.remove(subject)
            return
        }
        let next = line.removeFirst()
        waiting[subject] = line.isEmpty ? nil : line
        next.resume()  // the subject stays busy: it passes to the next in line
    }
}
