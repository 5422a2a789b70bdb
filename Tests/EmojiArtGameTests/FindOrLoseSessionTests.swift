import Synchronization
import Testing

@testable import EmojiArtGame

/// A source that answers from a script, optionally holding every answer until released.
actor ScriptedSource: GameImageSource {
    private var script: [Result<GameImage, GameImageError>]
    private var held: [CheckedContinuation<Void, Never>] = []
    private var holding: Bool
    private(set) var calls = 0
    private(set) var answered = 0

    init(_ script: [Result<GameImage, GameImageError>], holding: Bool = false) {
        self.script = script
        self.holding = holding
    }

    func randomImage() async throws(GameImageError) -> GameImage {
        calls += 1
        let answer = script.isEmpty ? .success(.emoji("🐢")) : script.removeFirst()
        if holding { await withCheckedContinuation { held.append($0) } }
        answered += 1
        return try answer.get()
    }

    func status() async -> GameSourceStatus { GameSourceStatus(name: "script") }

    func release() {
        holding = false
        for continuation in held { continuation.resume() }
        held = []
    }
}

/// The session: the rules played against a virtual clock, with a picture source.
@Suite("Find or Lose: a session")
struct FindOrLoseSessionTests {
    /// The first snapshot from `stream` that satisfies `condition` (within a few seconds).
    func next(
        _ stream: inout AsyncStream<GameSnapshot>.Iterator, where condition: (GameSnapshot) -> Bool
    ) async throws -> GameSnapshot {
        while let snapshot = await stream.next() {
            if condition(snapshot) { return snapshot }
        }
        throw CancellationError()
    }

    func session(_ source: ScriptedSource, clock: VirtualClock = VirtualClock()) -> FindOrLoseSession<VirtualClock> {
        FindOrLoseSession(source: source, clock: clock)
    }

    @Test func aRoundShowsOneOddTileAndTheScoreDrainsWithTheClock() async throws {
        let clock = VirtualClock()
        let game = session(ScriptedSource([.success(.emoji("🦊")), .success(.emoji("🐶"))]), clock: clock)
        var snapshots = await game.snapshots().makeAsyncIterator()
        #expect(try await next(&snapshots) { _ in true }.title == "Find or Lose")
        await game.play()
        let playing = try await next(&snapshots) { $0.phase == "playing" }
        #expect(playing.title == "Level: 1" && playing.score == 200)
        #expect(playing.tiles.filter { $0 == .emoji("🦊") }.count == 1)
        #expect(playing.tiles.filter { $0 == .emoji("🐶") }.count == 3)
        #expect(playing.message == nil)
        // Every drop is sent; nothing is sent between drops.
        await clock.waitForSleepers(1)
        clock.advance(by: .milliseconds(100))
        #expect(try await next(&snapshots) { _ in true }.score == 190)
        await clock.waitForSleepers(1)
        clock.advance(by: .milliseconds(50))
        clock.advance(by: .milliseconds(50))
        #expect(try await next(&snapshots) { _ in true }.score == 180)
        await clock.waitForSleepers(1)
        clock.advance(by: .milliseconds(100))
        #expect(try await next(&snapshots) { _ in true }.score == 170)
    }

    @Test func theOddTileLevelsUpAndAWrongOneEndsTheGame() async throws {
        let clock = VirtualClock()
        let source = ScriptedSource([
            .success(.emoji("🦊")), .success(.emoji("🐶")), .success(.emoji("🐸")), .success(.emoji("🐵")),
        ])
        let game = session(source, clock: clock)
        var snapshots = await game.snapshots().makeAsyncIterator()
        await game.play()
        let first = try await next(&snapshots) { $0.phase == "playing" }
        let oddTile = try #require(first.tiles.firstIndex(of: .emoji("🦊")))
        clock.advance(by: .milliseconds(300))
        await game.tap(oddTile)
        let second = try await next(&snapshots) { $0.phase == "playing" && $0.level == 2 }
        #expect(second.title == "Level: 2" && second.score == 370)
        let wrongTile = try #require(second.tiles.firstIndex(of: .emoji("🐵")))
        await game.tap(wrongTile)  // at once, like a double-click's second click: ignored
        clock.advance(by: .milliseconds(300))
        await game.tap(wrongTile)
        let over = try await next(&snapshots) { $0.phase == "stopped" }
        #expect(over.title == "Find or Lose" && over.level == 0 && over.score == 0 && over.tiles.isEmpty)
        #expect(over.message == "Game over at level 2 with 340 points.")
        #expect(clock.sleeperCount == 0)  // the score display stopped with the game
    }

    @Test func stopMidFetchIgnoresTheImagesWhenTheyArrive() async throws {
        let source = ScriptedSource([.success(.emoji("🦊")), .success(.emoji("🐶"))], holding: true)
        let game = session(source)
        await game.play()
        while await source.calls < 2 { await Task.yield() }
        #expect(await game.snapshot().phase == "loading")
        await game.tap(0)  // nothing to tap yet
        #expect(await game.snapshot().phase == "loading")
        await game.stop()
        await source.release()
        let stopped = await game.snapshot()
        #expect(stopped.phase == "stopped" && stopped.level == 0 && stopped.message == nil)
        // However long the late answers take to land, they change nothing.
        for _ in 0..<100 { await Task.yield() }
        #expect(await game.snapshot() == stopped)
    }

    @Test func aFailedFetchStopsTheGameWithAReadableMessage() async throws {
        let game = session(ScriptedSource([.success(.emoji("🦊")), .failure(.badStatus(500))]))
        var snapshots = await game.snapshots().makeAsyncIterator()
        await game.play()
        let stopped = try await next(&snapshots) { $0.phase == "stopped" && $0.message != nil }
        #expect(stopped.errorCode == "bad_status")
        #expect(stopped.message == "The image service answered with status 500.")
        #expect(stopped.title == "Find or Lose" && stopped.score == 0)
    }

    @Test func theSamePictureTwiceIsAskedForAgain() async throws {
        let source = ScriptedSource([.success(.emoji("🦊")), .success(.emoji("🦊")), .success(.emoji("🐶"))])
        let game = session(source)
        var snapshots = await game.snapshots().makeAsyncIterator()
        await game.play()
        let playing = try await next(&snapshots) { $0.phase == "playing" }
        #expect(Set(playing.tiles) == [.emoji("🦊"), .emoji("🐶")])
        #expect(await source.calls == 3)
    }

    @Test func bothPicturesAreFetchedAtOnce() async throws {
        let source = ScriptedSource([.success(.emoji("🦊")), .success(.emoji("🐶"))], holding: true)
        let game = session(source)
        await game.play()
        // Both calls are under way before either has answered.
        while await source.calls < 2 { await Task.yield() }
        #expect(await source.answered == 0)
        await source.release()
        await game.close()
    }

    /// A live connection follows with a function, no stream: the state now, then every change,
    /// until it stops following.
    @Test func aFollowerHearsTheStateNowThenEveryChangeUntilItStops() async throws {
        // The pictures are held: the level stays loading.
        let source = ScriptedSource([.success(.emoji("🦊")), .success(.emoji("🐶"))], holding: true)
        let game = session(source)
        let heard = Mutex<[GameSnapshot]>([])
        let id = await game.follow { snapshot in
            heard.withLock { $0.append(snapshot) }
            return true
        }
        #expect(heard.withLock { $0.map(\.phase) } == ["stopped"])
        await game.play()
        #expect(heard.withLock { $0.last?.phase } == "loading")
        game.unfollow(id)
        let count = heard.withLock { $0.count }
        await game.stop()
        #expect(heard.withLock { $0.count } == count, "nothing after unfollowing")
        await source.release()
        await game.close()
    }
}
