/// The rules of Find or Lose (PRODUCT.md §2), as a state machine with no clock of its own: every
/// event carries the instant it happened, read from the clock the caller was given, so the
/// score drains by arithmetic, not by a timer, and tests drive it with a virtual clock.
///
/// - **Play**: level + 1, score + 200, then two random images are fetched (``Phase/loading``);
///   taps do nothing until they are in.
/// - **Images in** (``imagesArrived(_:round:oddTile:at:)``): one tile shows the first image,
///   the other three the second; the score starts draining: 10 points every 0.1 s, never
///   below 0.
/// - **Tap the odd tile**: the next level (the score carries over). **Any other tile**: game
///   over — back to stopped with level and score 0. Taps in the first moments of a level
///   (``tapGraceMilliseconds``) are ignored: the second click of a double-click on the odd
///   tile arrives after the next level's tiles and must not count against them.
/// - **Stop**, or a failed fetch: back to stopped with level and score 0.
public struct FindOrLose<Instant: InstantProtocol>: Sendable where Instant.Duration == Duration {
    public enum Phase: String, Sendable, Equatable {
        case stopped
        /// Images for the current level are on their way.
        case loading
        case playing
    }

    /// How the last game ended, for the stopped screen.
    public enum Ending: Sendable, Equatable {
        case gameOver(level: Int, score: Int)
        case stoppedByPlayer
        case failed(GameImageError)
    }

    public enum TapOutcome: Sendable, Equatable {
        /// Nothing happened: not playing, images not in yet, or no such tile.
        case ignored
        /// The odd tile: the next level's images are wanted for this round.
        case nextLevel(round: Int)
        case gameOver
    }

    public static var tileCount: Int { 4 }
    public static var pointsPerLevel: Int { 200 }
    public static var pointsPerDrain: Int { 10 }
    /// One drain step is 0.1 s; kept in milliseconds so the arithmetic is exact.
    public static var drainIntervalMilliseconds: Int64 { 100 }
    /// How long a level's tiles ignore taps after they appear (a double-click's second click).
    public static var tapGraceMilliseconds: Int64 { 300 }

    public private(set) var phase = Phase.stopped
    public private(set) var level = 0
    /// The tiles in play: empty unless ``phase`` is ``Phase/playing``.
    public private(set) var tiles: [GameImage] = []
    /// Counts fetches, so a late answer for an abandoned round is recognised and dropped.
    public private(set) var round = 0
    public private(set) var ending: Ending?
    private var oddTile: Int?
    /// The score when draining started (or the score, when not draining).
    private var baseScore = 0
    private var drainingSince: Instant?

    public init() {}

    public var title: String { phase == .stopped ? "Find or Lose" : "Level: \(level)" }

    /// The score at `now`: the base score less 10 points per whole 0.1 s of play, never below 0.
    public func score(at now: Instant) -> Int {
        guard let drainingSince else { return baseScore }
        // Capped before multiplying, so a game left running for ever cannot overflow.
        let steps = min(Self.drainSteps(from: drainingSince, to: now), Int64(baseScore / Self.pointsPerDrain + 1))
        return max(0, baseScore - Int(steps) * Self.pointsPerDrain)
    }

    /// When the score next drops, if it will.
    public func nextDrain(after now: Instant) -> Instant? {
        guard let drainingSince, score(at: now) > 0 else { return nil }
        let nextStep = Self.drainSteps(from: drainingSince, to: now) + 1
        return drainingSince.advanced(by: .milliseconds(nextStep * Self.drainIntervalMilliseconds))
    }

    /// Whole 0.1 s steps from `start` to `end`.
    private static func drainSteps(from start: Instant, to end: Instant) -> Int64 {
        let elapsed = start.duration(to: end)
        let milliseconds = elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000
        return max(0, milliseconds / drainIntervalMilliseconds)
    }

    /// Play (from stopped): returns the round whose two images must now be fetched, or `nil`
    /// if a game is already under way.
    public mutating func play(at now: Instant) -> Int? {
        guard phase == .stopped else { return nil }
        ending = nil
        return startLevel(at: now)
    }

    /// The two images for `round` are in (the first for the odd tile, at `oddTile`), or the
    /// fetch failed. An answer for any round but the current one, or after a stop, is ignored.
    public mutating func imagesArrived(
        _ result: Result<(odd: GameImage, other: GameImage), GameImageError>, round: Int, oddTile: Int, at now: Instant
    ) {
        guard phase == .loading, round == self.round else { return }
        switch result {
        case .success(let images):
            let odd = min(max(oddTile, 0), Self.tileCount - 1)
            tiles = (0..<Self.tileCount).map { $0 == odd ? images.odd : images.other }
            self.oddTile = odd
            phase = .playing
            drainingSince = now
        case .failure(let error):
            end(.failed(error))
        }
    }

    public mutating func tap(_ tile: Int, at now: Instant) -> TapOutcome {
        guard phase == .playing, let oddTile, tiles.indices.contains(tile) else { return .ignored }
        if let shownAt = drainingSince, shownAt.duration(to: now) < .milliseconds(Self.tapGraceMilliseconds) {
            return .ignored
        }
        if tile == oddTile {
            return .nextLevel(round: startLevel(at: now))
        }
        end(.gameOver(level: level, score: score(at: now)))
        return .gameOver
    }

    /// Stop: whatever was going on ends, and a fetch still under way no longer matters.
    public mutating func stop() {
        guard phase != .stopped else { return }
        end(.stoppedByPlayer)
    }

    private mutating func startLevel(at now: Instant) -> Int {
        baseScore = score(at: now) + Self.pointsPerLevel
        drainingSince = nil
        level += 1
        round += 1
        phase = .loading
        tiles = []
        oddTile = nil
        return round
    }

    private mutating func end(_ ending: Ending) {
        self.ending = ending
        phase = .stopped
        level = 0
        baseScore = 0
        drainingSince = nil
        tiles = []
        oddTile = nil
        round += 1  // whatever is still being fetched belongs to no round now
    }
}
