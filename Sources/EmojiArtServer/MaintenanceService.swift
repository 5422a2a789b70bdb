import EmojiArtLive
import EmojiArtStore
import Foundation
import Logging
import ServiceLifecycle

/// Compacts settled documents into snapshots and unloads idle ones every `interval`; on graceful
/// shutdown (after the HTTP server has drained, before the store's connections close) snapshots
/// every open document. (Changes other processes make reach the server through
/// ``StoreChangeService``.)
struct MaintenanceService: Service {
    let library: DocumentLibrary
    let sessions: any SessionStore
    let grants: LiveGrants
    let settings: AccessSettings
    let interval: Duration
    let logger: Logger

    func run() async throws {
        var lastSweep = ContinuousClock.now
        var lastRecheck = ContinuousClock.now
        // History is thinned (`--history-days`) 5 seconds after starting, then every 6 hours.
        var lastThinning = ContinuousClock.now - .seconds(6 * 3600 - 5)
        // Titles stored before they were kept folded for search, 500 a turn until none are left.
        var titlesFolded = false
        var foldedThrough: UUID?
        while !Task.isShuttingDownGracefully, !Task.isCancelled {
            try? await cancelWhenGracefulShutdown {
                try await Task.sleep(for: interval)
            }
            await library.maintain()
            if !titlesFolded {
                do {
                    foldedThrough = try await library.store.foldTitles(after: foldedThrough, limit: 500)
                    titlesFolded = foldedThrough == nil
                } catch StoreError.unavailable {
                    // The database is away (said elsewhere): tried again next turn.
                } catch {
                    // Not an outage: the same would fail every turn. Those titles stay matched as
                    // the database lower-cases them (docs/API.md); the next start tries again.
                    logger.error("Folding titles for search failed, and stops until the server starts again: \(error)")
                    titlesFolded = true
                }
            }
            // Every minute: open live connections whose session, token or link ended without
            // anyone announcing it (the CLI on SQLite, idle expiry) close.
            if settings.mode == .accounts, ContinuousClock.now - lastRecheck > .seconds(60) {
                lastRecheck = ContinuousClock.now
                await grants.recheckAll()
            }
            if ContinuousClock.now - lastThinning > .seconds(6 * 3600) {
                lastThinning = ContinuousClock.now
                let removed = await library.thinHistory()
                if removed > 0 { logger.info("Thinned \(removed) old versions from documents' history.") }
            }
            // Hourly: sessions idle past their limit, sign-in failures out of the throttle's window.
            if settings.mode == .accounts, ContinuousClock.now - lastSweep > .seconds(3600) {
                lastSweep = ContinuousClock.now
                let now = Date()
                _ = try? await sessions.deleteSessions(idleSince: now.addingTimeInterval(-settings.sessionIdleLimit))
                try? await sessions.forgetSignInFailures(before: now.addingTimeInterval(-settings.throttleWindow))
            }
        }
        // A fresh task, so the snapshot is written even if the shutdown came as a cancellation.
        await Task { [library] in await library.compactAll() }.value
        logger.info("Saved every open document.")
    }
}
