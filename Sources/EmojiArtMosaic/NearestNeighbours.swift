/// A k-d tree: the points nearest a query (squared Euclidean distance), without comparing it with
/// every point. The tree is an ordering of the points where each range's middle point splits
/// the rest along the axis on which that range spreads most.
public struct NearestNeighbours: Sendable {
    public struct Neighbour: Equatable, Sendable {
        /// The point's index in the order given.
        public var index: Int
        public var distanceSquared: Double
    }

    public let dimensions: Int
    public var count: Int { order.count }
    private let coordinates: [Double]
    private var order: [Int]
    private var axes: [Int]

    /// A tree over `points` (each `dimensions` long).
    public init(points: [[Double]], dimensions: Int) {
        precondition(dimensions > 0 && points.allSatisfy { $0.count == dimensions }, "points of one dimension")
        self.dimensions = dimensions
        self.coordinates = points.flatMap { $0 }
        self.order = Array(points.indices)
        self.axes = Array(repeating: 0, count: points.count)
        build(0, points.count)
    }

    private mutating func build(_ low: Int, _ high: Int) {
        guard high - low > 1 else { return }
        var axis = 0
        var widest = -1.0
        for candidate in 0..<dimensions {
            var least = Double.infinity
            var most = -Double.infinity
            for point in order[low..<high] {
                let value = coordinates[point * dimensions + candidate]
                least = min(least, value)
                most = max(most, value)
            }
            if most - least > widest {
                widest = most - least
                axis = candidate
            }
        }
        let (coordinates, dimensions) = (self.coordinates, self.dimensions)
        order[low..<high].sort { coordinates[$0 * dimensions + axis] < coordinates[$1 * dimensions + axis] }
        let middle = (low + high) / 2
        axes[middle] = axis
        build(low, middle)
        build(middle + 1, high)
    }

    /// The `count` points nearest `query`, nearest first (ties in index order). With an
    /// `approximation` ε > 0, a part of the tree is skipped when it can't hold a point more than
    /// (1 + ε) times nearer than those found: each answer is then within (1 + ε) of the true
    /// distance, and queries far from every point (a dark picture against emojis on white) cost
    /// much less.
    public func nearest(_ query: [Double], count wanted: Int = 1, approximation: Double = 0) -> [Neighbour] {
        precondition(query.count == dimensions, "a query of the tree's dimension")
        guard wanted > 0, !order.isEmpty else { return [] }
        var best: [Neighbour] = []
        best.reserveCapacity(wanted + 1)
        coordinates.withUnsafeBufferPointer { coordinates in
            query.withUnsafeBufferPointer { query in
                let shrink = 1 / ((1 + approximation) * (1 + approximation))
                search(0, order.count, query, coordinates, wanted, shrink, &best)
            }
        }
        return best
    }

    private func search(
        _ low: Int, _ high: Int, _ query: UnsafeBufferPointer<Double>, _ coordinates: UnsafeBufferPointer<Double>,
        _ wanted: Int, _ shrink: Double, _ best: inout [Neighbour]
    ) {
        guard low < high else { return }
        let middle = (low + high) / 2
        let point = order[middle]
        var distance = 0.0
        let base = point * dimensions
        for axis in 0..<dimensions {
            let difference = query[axis] - coordinates[base + axis]
            distance += difference * difference
        }
        offer(Neighbour(index: point, distanceSquared: distance), wanted, &best)
        guard high - low > 1 else { return }
        let axis = axes[middle]
        let split = query[axis] - coordinates[base + axis]
        let (near, far) = split < 0 ? ((low, middle), (middle + 1, high)) : ((middle + 1, high), (low, middle))
        search(near.0, near.1, query, coordinates, wanted, shrink, &best)
        if best.count < wanted || split * split <= best[best.count - 1].distanceSquared * shrink {
            search(far.0, far.1, query, coordinates, wanted, shrink, &best)
        }
    }

    private func offer(_ candidate: Neighbour, _ wanted: Int, _ best: inout [Neighbour]) {
        func before(_ a: Neighbour, _ b: Neighbour) -> Bool {
            a.distanceSquared < b.distanceSquared || (a.distanceSquared == b.distanceSquared && a.index < b.index)
        }
        if best.count == wanted {
            guard before(candidate, best[wanted - 1]) else { return }
            best.removeLast()
        }
        var place = best.count
        while place > 0, before(candidate, best[place - 1]) { place -= 1 }
        best.insert(candidate, at: place)
    }
}
