import EmojiArtStore
import Foundation

/// The live message rates shared per client address and per document, held across every server
/// on one database: each server tells the others, every ``interval``, how many messages it let
/// each address and document send (``RateReport``, over the servers' broadcasts), and takes what
/// the others let go from its own share. So an address that spreads its windows over three
/// servers gets the rate once, not three times: at most one ``interval`` late, plus a burst per
/// server (docs/DEPLOY.md, "Limits across instances").
struct RateExchange: Sendable {
    /// How often each server tells what it let go: the most a shared rate can run ahead.
    static let interval: Duration = .milliseconds(200)

    let server: String
    let limits: LiveChannel.SharedLimits

    /// What this server let go since the last report; nil when nothing was.
    func report() -> RateReport? {
        let report = RateReport(
            server: server, addresses: limits.addresses.takeGranted(), documents: limits.documents.takeGranted())
        return report.isEmpty ? nil : report
    }

    /// Another server's report, taken from this one's shares (this server's own is ignored).
    func receive(_ report: RateReport) {
        guard report.server != server else { return }
        limits.addresses.debit(report.addresses)
        limits.documents.debit(report.documents)
    }
}

/// How many live messages one server let each client address and each document send in one
/// ``RateExchange/interval``, as told to the others: `rates <server>` then one line per key,
/// `a <count> <address>` or `d <count> <document id>`.
struct RateReport: Sendable, Equatable {
    var server: String
    var addresses: [String: Int] = [:]
    var documents: [UUID: Int] = [:]

    var isEmpty: Bool { addresses.isEmpty && documents.isEmpty }

    /// The report as payloads of at most `limit` UTF-8 bytes each (every one names the server).
    /// Keys that can't be written on one line (an address with a space) are left out.
    func payloads(limit: Int) -> [String] {
        let head = "rates \(server)"
        var lines = addresses.sorted { $0.key < $1.key }.compactMap { address, count in
            address.contains(where: \.isWhitespace) || address.isEmpty ? nil : "a \(count) \(address)"
        }
        lines += documents.sorted { $0.key.uuidString < $1.key.uuidString }.map { "d \($0.value) \($0.key.uuidString)" }
        var payloads: [String] = []
        var current = head
        for line in lines where head.utf8.count + 1 + line.utf8.count <= limit {
            if current.utf8.count + 1 + line.utf8.count > limit {
                payloads.append(current)
                current = head
            }
            current += "\n" + line
        }
        if current != head { payloads.append(current) }
        return payloads
    }

    init(server: String, addresses: [String: Int] = [:], documents: [UUID: Int] = [:]) {
        self.server = server
        self.addresses = addresses
        self.documents = documents
    }

    /// A payload another server sent, or nil if it isn't a report (presence, or malformed).
    init?(payload: String) {
        let lines = payload.split(separator: "\n")
        guard let head = lines.first, head.hasPrefix("rates ") else { return nil }
        server = String(head.dropFirst("rates ".count))
        for line in lines.dropFirst() {
            let parts = line.split(separator: " ", maxSplits: 2)
            guard parts.count == 3, let count = Int(parts[1]), count > 0 else { return nil }
            switch parts[0] {
            case "a": addresses[String(parts[2]), default: 0] += count
            case "d":
                guard let id = UUID(uuidString: String(parts[2])) else { return nil }
                documents[id, default: 0] += count
            default: return nil
            }
        }
    }
}
