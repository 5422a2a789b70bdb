import EmojiArtStore
import ServiceLifecycle

/// For a database other servers share: follows what they broadcast (``InstanceBroadcast``) —
/// who is present, handed to the ``PresenceHub``, and what they let each address and document
/// send, taken from the rates shared here (``RateExchange``) — and tells them, in turn, that this
/// server is alive every ``PresenceHub/heartbeatInterval`` (forgetting the windows of servers
/// gone silent) and what it let go every ``RateExchange/interval``.
struct BroadcastService: Service {
    let broadcasts: any InstanceBroadcast
    let hub: PresenceHub
    /// The live message rates to hold across servers; nil: presence only (tests).
    var rates: RateExchange? = nil

    func run() async throws {
        try await cancelWhenGracefulShutdown {
            await withDiscardingTaskGroup { group in
                group.addTask {
                    await broadcasts.followBroadcasts { event in
                        switch event {
                        case .reconnected:
                            await hub.reconnected()
                        case .payload(let payload):
                            if let report = RateReport(payload: payload) {
                                rates?.receive(report)
                            } else if let batch = PresenceBatch(payload: payload) {
                                await hub.receive(batch)
                            }
                        }
                    }
                }
                group.addTask {
                    while !Task.isCancelled {
                        await hub.tick()
                        try? await Task.sleep(for: PresenceHub.heartbeatInterval)
                    }
                }
                if let rates {
                    group.addTask {
                        while !Task.isCancelled {
                            if let report = rates.report() {
                                // Best effort: a report lost while the database is away only
                                // lets the rates run ahead for one interval.
                                try? await broadcasts.broadcast(report.payloads(limit: broadcasts.maximumPayload))
                            }
                            try? await Task.sleep(for: RateExchange.interval)
                        }
                    }
                }
            }
        }
    }
}
