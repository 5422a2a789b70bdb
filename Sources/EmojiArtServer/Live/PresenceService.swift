import EmojiArtStore
import ServiceLifecycle

/// For a database other servers share: hears what they tell about who is present
/// (``InstanceBroadcast``) and hands it to the ``PresenceHub``, and says every
/// ``PresenceHub/heartbeatInterval`` that this server is alive (and forgets the windows of
/// servers gone silent).
struct PresenceService: Service {
    let broadcasts: any InstanceBroadcast
    let hub: PresenceHub

    func run() async throws {
        try await cancelWhenGracefulShutdown {
            await withDiscardingTaskGroup { group in
                group.addTask {
                    await broadcasts.followBroadcasts { event in
                        switch event {
                        case .reconnected:
                            await hub.reconnected()
                        case .payload(let payload):
                            if let batch = PresenceBatch(payload: payload) { await hub.receive(batch) }
                        }
                    }
                }
                group.addTask {
                    while !Task.isCancelled {
                        await hub.tick()
                        try? await Task.sleep(for: PresenceHub.heartbeatInterval)
                    }
                }
            }
        }
    }
}
