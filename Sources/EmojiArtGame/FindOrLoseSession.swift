import EmojiArtKit

/// One player's game: the rules (``FindOrLose``), the clock they read, the picture source,
/// and the fetch and the score display under way. The server gives each `/play` window its
/// own session; the window sends intents (play, stop, tap) and renders the ``GameSnapshot``s
/// this sends — one after every change, and one each time the draining score drops.
public actor FindOrLoseSession<C: Clock> where C.Duration == Duration {
    private let source: any GameImageSource
    private let clock: C
    private var game = FindOrLose<C.Instant>()
    private var random: any RandomNumberGenerator
    private var fetch: Task<Void, Never>?
    private var drain: Task<Void, Never>?
    private let windows = Broadcaster<GameSnapshot>(policy: .newest(8))

    public init(
        source: any GameImageSource, clock: C, random: any RandomNumberGenerator = SystemRandomNumberGenerator()
    ) {
        self.source = source
        self.clock = clock
        self.random = random
    }

    /// The current state, then every change, until the session ends.
    public func snapshots() async -> AsyncStream<GameSnapshot> {
        let (stream, continuation) = windows.subscribe()
        continuation.yield(await snapshot())
        return stream
    }

    /// Follows the game with a function instead of a stream, for a connection with no task of
    /// its own: `receive` gets the current state, then every change, in order, on this session's
    /// executor, until the session ends or ``unfollow(_:)`` with the id returned here. It
    /// returns false to stop following.
    public func follow(receive: @escaping @Sendable (GameSnapshot) -> Bool) async -> UInt64 {
        let current = await snapshot()
        // No suspension from here on: the current state goes out before any change.
        _ = receive(current)
        return windows.subscribe(receive: receive, ended: {})
    }

    /// Stops a ``follow(receive:)``.
    public nonisolated func unfollow(_ id: UInt64) {
        windows.unsubscribe(id)
    }

    public func snapshot() async -> GameSnapshot {
        GameSnapshot(game, at: clock.now, source: await source.status())
    }

    public func play() async {
        guard let round = game.play(at: clock.now) else { return }
        startFetching(round)
        await publish()
    }

    public func tap(_ tile: Int) async {
        switch game.tap(tile, at: clock.now) {
        case .ignored:
            return
        case .nextLevel(let round):
            drain?.cancel()
            startFetching(round)
        case .gameOver:
            drain?.cancel()
        }
        await publish()
    }

    public func stop() async {
        guard game.phase != .stopped else { return }
        fetch?.cancel()
        drain?.cancel()
        game.stop()
        await publish()
    }

    /// Ends the session: nothing more is fetched or sent.
    public func close() {
        fetch?.cancel()
        drain?.cancel()
        game.stop()
        windows.finishAll()
    }

    private func startFetching(_ round: Int) {
        fetch?.cancel()
        let source = self.source
        fetch = Task {
            let result = await Self.fetchPair(from: source)
            await self.arrived(result, round: round)
        }
    }

    /// The two pictures of a round, fetched at once. The original joined two Combine
    /// publishers with `zip`, each a `flatMap` from the API call to the download; `async let`
    /// says the same with structured concurrency: both chains run concurrently, the pair is
    /// complete only when both are, the first failure cancels the other, and cancelling the
    /// round (Stop) cancels both. A source that happens to draw the same picture twice is asked
    /// again for the second, so a level always has an odd tile.
    static func fetchPair(
        from source: any GameImageSource
    ) async -> Result<(odd: GameImage, other: GameImage), GameImageError> {
        do {
            async let first = source.randomImage()
            async let second = source.randomImage()
            let odd = try await first
            var other = try await second
            var retries = 0
            while other == odd, retries < 4 {
                other = try await source.randomImage()
                retries += 1
            }
            guard other != odd else { return .failure(.other("the source offered the same picture every time")) }
            return .success((odd, other))
        } catch let error as GameImageError {
            return .failure(error)
        } catch {
            return .failure(.other("cancelled"))
        }
    }

    private func arrived(_ result: Result<(odd: GameImage, other: GameImage), GameImageError>, round: Int) async {
        guard !Task.isCancelled, round == game.round else { return }
        let odd = Int.random(in: 0..<FindOrLose<C.Instant>.tileCount, using: &random)
        game.imagesArrived(result, round: round, oddTile: odd, at: clock.now)
        if game.phase == .playing { startDraining() }
        await publish()
    }

    /// Sends a snapshot each time the score drops, until it reaches 0 or the level ends.
    private func startDraining() {
        drain?.cancel()
        let round = game.round
        drain = Task { [clock] in
            while let next = self.nextDrain(round: round) {
                do {
                    try await clock.sleep(until: next, tolerance: nil)
                } catch {
                    return
                }
                await self.publish()
            }
        }
    }

    private func nextDrain(round: Int) -> C.Instant? {
        guard round == game.round, !Task.isCancelled else { return nil }
        return game.nextDrain(after: clock.now)
    }

    private func publish() async {
        let snapshot = await snapshot()
        windows.send(snapshot)
    }
}

/// What the page shows: everything but which tile is the odd one.
public struct GameSnapshot: Sendable, Equatable {
    public var phase: String
    public var title: String
    public var level: Int
    public var score: Int
    public var tiles: [GameImage]
    /// Why the last game ended, in words, when stopped.
    public var message: String?
    /// The error's ``GameImageError/code`` when the last game ended with one.
    public var errorCode: String?
    public var source: GameSourceStatus

    init<Instant>(_ game: FindOrLose<Instant>, at now: Instant, source: GameSourceStatus)
    where Instant.Duration == Duration {
        phase = game.phase.rawValue
        title = game.title
        level = game.level
        score = game.score(at: now)
        tiles = game.tiles
        self.source = source
        switch game.phase == .stopped ? game.ending : nil {
        case .gameOver(let level, let score)?:
            message = "Game over at level \(level) with \(score) point\(score == 1 ? "" : "s")."
        case .failed(let error)?:
            message = error.description
            errorCode = error.code
        case .stoppedByPlayer?, nil:
            message = nil
        }
    }
}
