import EmojiArtLive
import Logging
import ServiceLifecycle

/// Compacts settled documents into snapshots and unloads idle ones, and picks up palettes
/// changed in the store by another process (the CLI), every `interval`; on graceful shutdown
/// (after the HTTP server has drained) snapshots every open document.
struct MaintenanceService: Service {
    let library: DocumentLibrary
    let palettes: PaletteLibrary
    let interval: Duration
    let logger: Logger

    func run() async throws {
        while !Task.isShuttingDownGracefully, !Task.isCancelled {
            try? await cancelWhenGracefulShutdown {
                try await Task.sleep(for: interval)
            }
            await library.maintain()
            await palettes.refreshFromStore()
        }
        // A fresh task, so the snapshot is written even if the shutdown came as a cancellation.
        await Task { [library] in await library.compactAll() }.value
        logger.info("Saved every open document.")
    }
}
