import Testing

@testable import EmojiArtGame

/// The rules of PRODUCT.md §2, played at instants of a virtual clock.
@Suite("Find or Lose: the rules")
struct FindOrLoseTests {
    typealias Game = FindOrLose<VirtualClock.Instant>
    let start = VirtualClock.Instant(offset: .zero)
    let odd = GameImage.emoji("🦊")
    let other = GameImage.emoji("🐶")

    func at(_ milliseconds: Int) -> VirtualClock.Instant { start.advanced(by: .milliseconds(milliseconds)) }

    /// A game at level 1 with its images in at `start`, the odd tile at `oddTile`.
    func playing(oddTile: Int = 2) -> Game {
        var game = Game()
        let round = game.play(at: start)!
        game.imagesArrived(.success((odd, other)), round: round, oddTile: oddTile, at: start)
        return game
    }

    @Test func stoppedIsFindOrLoseWithNothingToTap() {
        var game = Game()
        #expect(game.title == "Find or Lose" && game.phase == .stopped)
        #expect(game.level == 0 && game.score(at: at(5_000)) == 0 && game.tiles.isEmpty)
        #expect(game.tap(0, at: start) == .ignored)
    }

    @Test func playIsLevelOneWorth200AndTapsWaitForTheImages() {
        var game = Game()
        let round = game.play(at: start)
        #expect(round != nil)
        #expect(game.phase == .loading && game.title == "Level: 1" && game.level == 1)
        #expect(game.score(at: start) == 200)
        // The original crashed here: tapping before the images are in does nothing.
        for tile in 0..<4 { #expect(game.tap(tile, at: at(10)) == .ignored) }
        #expect(game.phase == .loading && game.level == 1)
        // Nothing drains while the images are on their way.
        #expect(game.score(at: at(3_000)) == 200)
        // Play again while playing does nothing.
        #expect(game.play(at: at(20)) == nil)
    }

    @Test func oneTileShowsTheFirstImageAndThreeTheSecond() {
        for oddTile in 0..<4 {
            let game = playing(oddTile: oddTile)
            #expect(game.phase == .playing)
            #expect(game.tiles.count == 4)
            #expect(game.tiles.enumerated().allSatisfy { $0.element == ($0.offset == oddTile ? odd : other) })
        }
    }

    @Test func tenPointsDrainEveryTenthOfASecond() {
        let game = playing()
        #expect(game.score(at: at(0)) == 200)
        #expect(game.score(at: at(99)) == 200)
        #expect(game.score(at: at(100)) == 190)
        #expect(game.score(at: at(350)) == 170)
        #expect(game.score(at: at(1_000)) == 100)
        #expect(game.nextDrain(after: at(350)) == at(400))
    }

    @Test func theScoreDrainsToZeroAndNoFurther() {
        let game = playing()
        #expect(game.score(at: at(1_900)) == 10)
        #expect(game.score(at: at(2_000)) == 0)
        #expect(game.score(at: at(2_100)) == 0)
        #expect(game.score(at: at(86_400_000)) == 0)
        #expect(game.nextDrain(after: at(2_000)) == nil)
        #expect(game.nextDrain(after: at(1_950)) == at(2_000))
    }

    @Test func theOddTileIsTheNextLevelAndTheScoreCarriesOver() {
        var game = playing(oddTile: 1)
        let outcome = game.tap(1, at: at(500))  // 200 - 50 = 150
        guard case .nextLevel(let round) = outcome else {
            Issue.record("the odd tile did not level up: \(outcome)")
            return
        }
        #expect(game.title == "Level: 2" && game.level == 2 && game.phase == .loading)
        #expect(game.score(at: at(500)) == 350)
        #expect(game.score(at: at(9_000)) == 350)  // no draining while loading
        game.imagesArrived(.success((odd, other)), round: round, oddTile: 3, at: at(1_000))
        #expect(game.score(at: at(1_300)) == 320)
    }

    /// A double-click on the odd tile: its second click lands on the next level's tiles, which
    /// arrive ~20 ms later; it must not count as a tap on them.
    @Test func aLevelIgnoresTapsInItsFirstMoments() {
        var game = playing(oddTile: 1)
        guard case .nextLevel(let round) = game.tap(1, at: at(400)) else {
            Issue.record("the odd tile did not level up")
            return
        }
        game.imagesArrived(.success((odd, other)), round: round, oddTile: 0, at: at(420))
        #expect(game.tap(1, at: at(430)) == .ignored)  // the second click
        #expect(game.tap(1, at: at(719)) == .ignored)
        #expect(game.phase == .playing && game.level == 2)
        #expect(game.tap(1, at: at(720)) == .gameOver)  // after the grace, taps count
    }

    @Test func anyOtherTileIsGameOverAndResetsEverything() {
        var game = playing(oddTile: 1)
        #expect(game.tap(3, at: at(300)) == .gameOver)
        #expect(game.phase == .stopped && game.title == "Find or Lose")
        #expect(game.level == 0 && game.score(at: at(300)) == 0 && game.tiles.isEmpty)
        #expect(game.ending == .gameOver(level: 1, score: 170))
        #expect(game.tap(1, at: at(400)) == .ignored)
        // A new game starts from level 1 again.
        _ = game.play(at: at(500))
        #expect(game.level == 1 && game.score(at: at(500)) == 200)
    }

    @Test func stopMidFetchDropsTheLateImages() {
        var game = Game()
        let round = game.play(at: start)!
        game.stop()
        #expect(game.phase == .stopped && game.level == 0 && game.ending == .stoppedByPlayer)
        game.imagesArrived(.success((odd, other)), round: round, oddTile: 0, at: at(100))
        #expect(game.phase == .stopped && game.tiles.isEmpty)
        // Nor do they land in the next game.
        let next = game.play(at: at(200))!
        game.imagesArrived(.success((odd, other)), round: round, oddTile: 0, at: at(300))
        #expect(game.phase == .loading)
        game.imagesArrived(.success((other, odd)), round: next, oddTile: 0, at: at(300))
        #expect(game.phase == .playing && game.tiles[0] == other)
    }

    @Test func stopWhilePlayingResetsLevelAndScore() {
        var game = playing()
        game.stop()
        #expect(game.phase == .stopped && game.level == 0 && game.score(at: at(100)) == 0)
        #expect(game.title == "Find or Lose")
    }

    @Test func aFailedFetchStopsTheGameAndSaysWhy() {
        var game = Game()
        let round = game.play(at: start)!
        game.imagesArrived(.failure(.badStatus(500)), round: round, oddTile: 0, at: at(100))
        #expect(game.phase == .stopped && game.level == 0 && game.score(at: at(100)) == 0)
        #expect(game.ending == .failed(.badStatus(500)))
    }

    @Test func tapsOutsideTheBoardAreIgnored() {
        var game = playing()
        #expect(game.tap(-1, at: at(10)) == .ignored)
        #expect(game.tap(4, at: at(10)) == .ignored)
        #expect(game.phase == .playing && game.level == 1)
    }
}
