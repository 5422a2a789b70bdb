import Foundation

/// What users drop as an image address, turned into the address of the image itself.
public enum ImageAddress {
    /// Image-search result links carry the real image's address in their query: `imgurl=…`
    /// (Google Images), or otherwise the first query value that is itself an http(s) URL
    /// (PRODUCT.md §1.4). Such a link is replaced by that address; any other URL is unchanged.
    ///
    /// ```swift
    /// ImageAddress.unwrapped("https://www.google.com/imgres?imgurl=https%3A%2F%2Fx.org%2Fcat.png&tbnid=1")
    /// // https://x.org/cat.png
    /// ```
    public static func unwrapped(_ url: URL) -> URL {
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false),
            let items = components.queryItems, !items.isEmpty
        else { return url }
        let candidates =
            items.filter { $0.name.lowercased() == "imgurl" } + items.filter { $0.name.lowercased() != "imgurl" }
        for item in candidates {
            guard let value = item.value, let inner = URL(string: value), let scheme = inner.scheme?.lowercased(),
                scheme == "http" || scheme == "https", inner.host?.isEmpty == false
            else { continue }
            // Unwrap again: a redirect link may wrap a search link.
            return inner == url ? url : unwrapped(inner)
        }
        return url
    }
}
