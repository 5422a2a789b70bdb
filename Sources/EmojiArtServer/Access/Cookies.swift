import Foundation
import HTTPTypes

/// The cookies EmojiArt sets, read and written as values.
public enum Cookies {
    /// The session of a signed-in browser.
    public static let session = "emojiart_session"
    /// A random id for this browser: the share links it opened are kept by the server under its
    /// SHA-256 (``LinkStore/links(browser:)``), so no other site can push them out.
    public static let browser = "emojiart_browser"
    /// The share links a browser opened before they were kept by the server: space-separated
    /// tokens, still read (never written) until the cookie expires or the browser opens a link.
    public static let links = "emojiart_links"
    /// How many tokens of ``links`` are read.
    public static let maximumLinks = 20

    /// The cookies of a request, by name (the first of each name wins).
    public static func read(_ fields: HTTPFields) -> [String: String] {
        var cookies: [String: String] = [:]
        for header in fields[values: .cookie] {
            for pair in header.split(separator: ";") {
                let parts = pair.split(separator: "=", maxSplits: 1)
                guard parts.count == 2 else { continue }
                let name = parts[0].trimmingCharacters(in: .whitespaces)
                let value = parts[1].trimmingCharacters(in: .whitespaces)
                if cookies[name] == nil { cookies[name] = value }
            }
        }
        return cookies
    }

    /// The link tokens a request carries, well-formed ones only.
    public static func linkTokens(_ cookies: [String: String]) -> [String] {
        guard let value = cookies[links] else { return [] }
        let decoded = value.replacingOccurrences(of: "+", with: " ").replacingOccurrences(of: "%20", with: " ")
        return decoded.split(separator: " ").filter { Secret.isWellFormed($0) }.map(String.init)
            .suffix(maximumLinks).map { $0 }
    }

    /// A `Set-Cookie` value: HttpOnly, SameSite=Lax, the whole site, `Secure` over https.
    /// - Parameter maxAge: seconds; 0 deletes the cookie.
    public static func setCookie(_ name: String, _ value: String, maxAge: Int, secure: Bool) -> String {
        "\(name)=\(value); Path=/; Max-Age=\(maxAge); HttpOnly; SameSite=Lax" + (secure ? "; Secure" : "")
    }

    /// The browser cookie: a year, renewed whenever the browser opens a link.
    public static func setBrowser(_ id: String, secure: Bool) -> String {
        setCookie(browser, id, maxAge: 365 * 24 * 3600, secure: secure)
    }
}
