import EmojiArtLive
import EmojiArtStore
import Logging
import ServiceLifecycle

/// For a store several servers share (PostgreSQL): hears every change committed through any of
/// them and brings this server's open documents and palettes up to date, so a window on this
/// server sees, live, edits made through another.
struct StoreChangeService: Service {
    let store: any SharedDocumentStore
    let library: DocumentLibrary
    let palettes: PaletteLibrary

    func run() async throws {
        await cancelWhenGracefulShutdown {
            for await change in store.changes() {
                switch change {
                case .palettes:
                    await palettes.refreshFromStore()
                case .resync:
                    await palettes.refreshFromStore()
                    await library.storeChanged(change)
                case .appended, .deleted, .linkRevoked, .membersChanged:
                    await library.storeChanged(change)
                }
            }
        }
    }
}
