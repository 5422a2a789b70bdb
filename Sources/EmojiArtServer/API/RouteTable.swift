import Hummingbird
import Synchronization

/// The methods each route pattern answers, so that a request with another method on a path that
/// exists is `405 Method Not Allowed` with `Allow` (RFC 9110 §15.5.6), not `404`. Filled once the
/// router's routes are all added (``buildRouter(_:logger:)``).
final class RouteTable: Sendable {
    private let patterns = Mutex<[(segments: [Substring], methods: Set<String>)]>([])

    /// Records every route of `routes`, plus the files the file middleware serves at `/`.
    func record(_ routes: [(path: String, method: String)]) {
        var table: [String: Set<String>] = ["/": ["GET", "HEAD"]]
        for route in routes {
            table[route.path, default: []].insert(route.method)
            // The router answers HEAD wherever it answers GET.
            if route.method == "GET" { table[route.path, default: []].insert("HEAD") }
        }
        patterns.withLock { patterns in
            patterns = table.map { (Self.segments($0.key), $0.value) }
        }
    }

    /// The methods `path` is answered for, or nil if no route has that path. As the router
    /// does, a pattern with more literal segments wins: `/api/palettes/import` is not
    /// `/api/palettes/{id}`.
    func methods(for path: String) -> Set<String>? {
        let wanted = Self.segments(path)
        return patterns.withLock { patterns in
            var best: (literals: Int, methods: Set<String>)?
            for pattern in patterns where pattern.segments.count == wanted.count {
                var literals = 0
                let matches = zip(pattern.segments, wanted).allSatisfy { pattern, part in
                    if pattern.hasPrefix(":") || pattern.hasPrefix("{") { return true }
                    literals += 1
                    return pattern == part
                }
                guard matches else { continue }
                if best == nil || literals > best!.literals {
                    best = (literals, pattern.methods)
                } else if literals == best!.literals {
                    best!.methods.formUnion(pattern.methods)
                }
            }
            return best?.methods
        }
    }

    private static func segments(_ path: String) -> [Substring] {
        path.split(separator: "/", omittingEmptySubsequences: true)
    }
}
