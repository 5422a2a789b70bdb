import EmojiArtFetch
import Foundation

/// How the server decides who may do what: its mode and the rules of accounts mode, as values
/// tests can set.
public struct AccessSettings: Sendable {
    /// Who may use the server.
    public enum Mode: String, Sendable, CaseIterable {
        /// One user on this machine, no sign-in: the server listens on loopback only and refuses
        /// other sites (foreign `Host` and `Origin`). The local user owns everything.
        case local
        /// Users with passwords, sessions and tokens; documents shared by name or by link.
        case accounts
    }

    public var mode: Mode = .local
    /// Whether anyone may make themselves an account (`--signup open`).
    public var openSignup = false
    /// Cookies get `Secure` when people reach the server over https (`--public-url https://…`).
    public var secureCookies = false
    /// A session unused this long has ended.
    public var sessionIdleLimit: TimeInterval = 30 * 24 * 3600
    /// A session's last use is written down at most this often (not on every request).
    public var sessionTouchInterval: TimeInterval = 3600
    /// Sign-in failures allowed per name and per client address within ``throttleWindow``.
    public var throttleLimit = 10
    public var throttleWindow: TimeInterval = 15 * 60
    /// bcrypt's cost: 2^cost rounds. 12 takes about a quarter of a second, which is the point.
    public var passwordCost: UInt8 = 12
    /// Peers whose `X-Forwarded-For` names the client (proxies): loopback, plus
    /// `$EMOJIART_TRUSTED_PROXIES` (address ranges, comma-separated).
    public var trustedProxies: [AddressRange] = ["127.0.0.0/8", "::1/128"].compactMap(AddressRange.init)

    /// Live messages every connection from one client address shares, and every connection on
    /// one document: each handed out fairly (``FairShare``), so connections that flood wait
    /// their turn behind a window that sends now and then. A connection's own limit is
    /// ``LiveChannel/Limits``.
    public var liveMessagesPerAddress = RateLimit(perSecond: 1_000, burst: 2_000)
    public var liveMessagesPerDocument = RateLimit(perSecond: 500, burst: 1_000)

    public init() {}
}
