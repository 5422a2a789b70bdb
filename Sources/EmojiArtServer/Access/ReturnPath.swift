import Foundation

/// Where the browser may be sent after signing in (the sign-in page's `next`): a path of this
/// site, never another. The address is read as a browser would read it — tabs and newlines
/// dropped, backslashes as slashes, percent-escapes decoded, `.` and `..` resolved — and kept
/// only if what is left is a path that starts with one `/`. An absolute URL is kept only when it
/// names this server, and then only its path. Anything else is `/`.
///
/// A pure value: the server answers the page with ``path`` (and redirects with it in local
/// mode), the page checks again with the same rules (`signin.js`), and tests drive it with a
/// table of attacks.
public struct ReturnPath: Sendable, Equatable {
    /// The path to go to, query and fragment included: `/documents/…`, or `/`.
    public let path: String

    /// The longest `next` looked at; a longer one is `/`.
    public static let maximumLength = 2048

    /// - Parameters:
    ///   - next: the `next` parameter as sent, or nil.
    ///   - ownNames: the host names (lower case, IPv6 in brackets) an absolute URL may name.
    public init(_ next: String?, ownNames: Set<String>) {
        path = next.flatMap { Self.sanitized($0, ownNames: ownNames) } ?? "/"
    }

    static func sanitized(_ raw: String, ownNames: Set<String>) -> String? {
        guard raw.utf8.count <= maximumLength else { return nil }
        // As a URL parser does: C0 controls and spaces trimmed, tabs and newlines dropped anywhere.
        var text = String(
            String.UnicodeScalarView(raw.unicodeScalars.filter { $0 != "\t" && $0 != "\n" && $0 != "\r" }))
        text = text.trimmingCharacters(in: CharacterSet(charactersIn: "\u{0}"..."\u{20}"))
        text = text.replacingOccurrences(of: "\\", with: "/")
        if let colon = text.firstIndex(of: ":"), isScheme(text[..<colon]) {
            guard
                let rest = pathOfOwnURL(scheme: text[..<colon], afterColon: text[text.index(after: colon)...], ownNames)
            else { return nil }
            text = rest
        }
        guard text.hasPrefix("/"), !text.hasPrefix("//") else { return nil }
        let (rawPath, suffix) = split(text)
        guard let decoded = decoded(rawPath) else { return nil }
        let normalised = removingDotSegments(decoded.replacingOccurrences(of: "\\", with: "/"))
        guard normalised.hasPrefix("/"), !normalised.hasPrefix("//"),
            !normalised.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F })
        else { return nil }
        guard let path = normalised.addingPercentEncoding(withAllowedCharacters: pathCharacters) else { return nil }
        return path + suffix
    }

    /// Whether `text` is a URL scheme (`http`, `javascript`…), so what follows its colon is not a path.
    private static func isScheme(_ text: Substring) -> Bool {
        guard let first = text.unicodeScalars.first, first.isASCII, CharacterSet.letters.contains(first) else {
            return false
        }
        return text.unicodeScalars.allSatisfy {
            $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "+-.".unicodeScalars.contains($0))
        }
    }

    /// The path (with query and fragment) of an `http(s)` URL naming one of `ownNames`, else nil.
    private static func pathOfOwnURL(scheme: Substring, afterColon: Substring, _ ownNames: Set<String>) -> String? {
        guard ["http", "https"].contains(scheme.lowercased()) else { return nil }
        // Browsers read `http:host`, `http:/host` and `http:///host` as `http://host`.
        let rest = afterColon.drop(while: { $0 == "/" })
        let end = rest.firstIndex(where: { "/?#".contains($0) }) ?? rest.endIndex
        let authority = rest[..<end]
        guard !authority.contains("@"), let host = SiteGuard.hostName(String(authority)), ownNames.contains(host)
        else { return nil }
        let tail = String(rest[end...])
        return tail.hasPrefix("/") ? tail : "/" + tail
    }

    /// The path, and the query and fragment after it (kept as sent, with only what can't be in
    /// a URL escaped).
    private static func split(_ text: String) -> (path: String, suffix: String) {
        guard let end = text.firstIndex(where: { $0 == "?" || $0 == "#" }) else { return (text, "") }
        let suffix = String(text[end...])
        let escaped = suffix.addingPercentEncoding(withAllowedCharacters: suffixCharacters) ?? ""
        return (String(text[..<end]), escaped)
    }

    /// Percent-escapes decoded until none is left (at most four rounds), or nil when they don't
    /// decode to UTF-8 — so `%252F%252F` is judged as the `//` it may become.
    private static func decoded(_ path: String) -> String? {
        var current = path
        for _ in 0..<4 {
            guard current.contains("%") else { return current }
            // A `%` that starts no escape (`/100%`) is kept as it is; a bad escape is refused.
            guard let next = current.removingPercentEncoding else { return hasEscape(current) ? nil : current }
            if next == current { return current }
            current = next
        }
        return hasEscape(current) ? nil : current
    }

    /// Whether `text` still holds a `%` followed by two hex digits.
    private static func hasEscape(_ text: String) -> Bool {
        let scalars = Array(text.unicodeScalars)
        for index in scalars.indices where scalars[index] == "%" && index + 2 < scalars.count {
            if scalars[index + 1].properties.isASCIIHexDigit, scalars[index + 2].properties.isASCIIHexDigit {
                return true
            }
        }
        return false
    }

    /// RFC 3986's remove_dot_segments, for an absolute path.
    static func removingDotSegments(_ path: String) -> String {
        var output: [Substring] = []
        let segments = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        for (index, segment) in segments.enumerated() {
            let isLast = index == segments.count - 1
            switch segment {
            case ".":
                if isLast { output.append("") }
            case "..":
                if !output.isEmpty { output.removeLast() }
                if isLast { output.append("") }
            default:
                output.append(segment)
            }
        }
        return "/" + output.joined(separator: "/")
    }

    /// What a path may hold unescaped: unreserved, sub-delimiters, `:`, `@` and `/`.
    private static let pathCharacters = CharacterSet(
        charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~!$&'()*+,;=:@/")
    /// What a query or fragment may hold unescaped (escapes already in it are kept).
    private static let suffixCharacters = pathCharacters.union(CharacterSet(charactersIn: "?#%"))
}
