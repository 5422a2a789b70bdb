import EmojiArtLive
import EmojiArtStore
import EmojiArtWire
import Logging
import ServiceLifecycle

/// For a database other processes write to as well (``StoreChangeFeed``: other servers on
/// PostgreSQL, heard through `NOTIFY`; the command line on SQLite): hears every change committed
/// elsewhere and brings this server's open documents, palettes and live grants up to date, so a
/// window on this server sees, live, edits made through another, and palettes changed with
/// `emojiart palettes`.
struct StoreChangeService: Service {
    let changes: any StoreChangeFeed
    let library: DocumentLibrary
    let palettes: PaletteLibraries
    let grants: LiveGrants
    let presence: PresenceHub

    func run() async throws {
        try await cancelWhenGracefulShutdown {
            await changes.followChanges { change in await handle(change) }
        }
    }

    private func handle(_ change: StoreChange) async {
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
        case .comments(let document):
            await presence.tell(document: document, LiveMessages.comments)
        case .appended, .deleted:
            await library.storeChanged(change)
        }
    }
}
