import AsyncHTTPClient
import Foundation
import NIOCore

/// Why talking to another server failed, in a few plain words a person can act on ("the
/// connection was refused"), instead of the layers of a networking library's description
/// ("connection reset (error set): Connection refused (errno: 111)").
public enum ConnectionFailure {
    public static func reason(_ error: any Error) -> String {
        if let error = error as? HTTPClientError {
            switch error {
            case .connectTimeout, .deadlineExceeded, .readTimeout, .writeTimeout: return "it didn't answer in time"
            case .remoteConnectionClosed: return "it closed the connection"
            case .tlsHandshakeTimeout: return "a secure connection couldn't be made in time"
            default: break
            }
        }
        if let error = error as? IOError { return reason(errno: error.errnoCode) }
        let text = String(reflecting: error)
        if let match = text.firstMatch(of: /errno: (\d+)/), let code = Int32(match.1) { return reason(errno: code) }
        let lower = text.lowercased()
        if lower.contains("dns") || lower.contains("resolve") || lower.contains("nodename")
            || lower.contains("nxdomain")
        {
            return "its address couldn't be found"
        }
        if lower.contains("tls") || lower.contains("ssl") || lower.contains("certificate")
            || lower.contains("handshake")
        {
            return "a secure connection couldn't be made"
        }
        if lower.contains("refused") { return "the connection was refused" }
        return "the connection failed"
    }

    static func reason(errno code: Int32) -> String {
        switch code {
        case ECONNREFUSED: "the connection was refused"
        case ECONNRESET: "the connection was reset"
        case ETIMEDOUT: "the connection timed out"
        case EHOSTUNREACH, ENETUNREACH, ENETDOWN: "the network couldn't reach it"
        case EPIPE: "the connection was closed"
        default: "the connection failed"
        }
    }
}

extension String {
    /// The text as a clause to follow a colon in another sentence: without its closing full stop.
    public var asClause: String {
        var text = trimmingCharacters(in: .whitespacesAndNewlines)
        while text.last == "." { text.removeLast() }
        return text
    }
}
