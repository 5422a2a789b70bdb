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
    let palettes: PaletteLibraries
    let grants: LiveGrants

    func run() async throws {
        await cancelWhenGracefulShutdown {
            for await change in store.changes() {
                switch change {
                case .palettes:
                    await palettes.refreshFromStore()
                case .resync:
                    await palettes.refreshFromStore()
                    await library.storeChanged(change)
                    await grants.recheckAll()
                case .linkRevoked(let link):
                    await grants.linkRevoked(link)
                case .membersChanged(let document):
                    await grants.membersChanged(document)
                case .appended, .deleted:
                    await library.storeChanged(change)
                }
            }
        }
    }
}
