import EmojiArtKit
import EmojiArtLive
import EmojiArtWire
import Foundation
import HummingbirdWebSocket
import Logging

/// `GET /api/palettes/live`, upgraded to a WebSocket: a window following the shared palettes
/// (docs/API.md, "Live palettes"). The server sends `{"type": "palettes", "version",
/// "palettes": [{"id", "name", "emojis"}]}` on connect and after every change, whoever made it
/// (any window, the HTTP API, or the CLI on the same database). Changes themselves go through
/// the HTTP API; the window sends nothing.
struct PaletteChannel: Sendable {
    let logger: Logger

    func run(palettes: PaletteLibrary, inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter) async {
        let subscription: (current: PaletteSnapshot, updates: AsyncStream<PaletteSnapshot>)
        do {
            subscription = try await palettes.subscribe()
            try await outbound.write(.text(LiveMessages.palettes(subscription.current)))
        } catch {
            try? await outbound.close(.unknown(LiveCloseCode.documentClosed.rawValue), reason: "Try again.")
            return
        }
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                do {
                    for await snapshot in subscription.updates {
                        try await outbound.write(.text(LiveMessages.palettes(snapshot)))
                    }
                } catch {
                    logger.debug("palette connection ended: \(error)")
                }
            }
            group.addTask {
                // Nothing is expected from the window: read (and drop) until it closes.
                do {
                    for try await _ in inbound.messages(maxSize: 4096) {}
                } catch {
                    logger.debug("palette connection ended: \(error)")
                }
            }
            await group.next()
            group.cancelAll()
        }
    }
}
