/// A document's emojis in drawing order (later ones on top), with O(1) lookup by id.
///
/// Stored as the ids in order plus a table from id to emoji, so a move or resize touches one
/// table entry and a delete shifts only an array of integers — edits stay fast at 100,000 emojis.
public struct EmojiCollection: Equatable, Sendable {
    private var order: [Int] = []
    private var table: [Int: Emoji] = [:]

    public init() {}

    /// The emoji with this id, in O(1).
    public subscript(id id: Int) -> Emoji? { table[id] }

    /// Whether an emoji with this id exists, in O(1).
    public func contains(id: Int) -> Bool { table[id] != nil }

    /// The ids in drawing order.
    public var ids: [Int] { order }

    /// Where the emoji with this id is in drawing order, in O(n).
    public func index(ofID id: Int) -> Int? { order.firstIndex(of: id) }

    mutating func reserveCapacity(_ capacity: Int) {
        order.reserveCapacity(capacity)
        table.reserveCapacity(capacity)
    }

    /// Adds the emoji on top; false, changing nothing, if its id is taken.
    @discardableResult
    mutating func append(_ emoji: Emoji) -> Bool {
        if let taken = table.updateValue(emoji, forKey: emoji.id) {
            table[emoji.id] = taken
            return false
        }
        order.append(emoji.id)
        return true
    }

    mutating func insert(_ emoji: Emoji, at index: Int) {
        order.insert(emoji.id, at: index)
        table[emoji.id] = emoji
    }

    /// Removes the emoji, returning it with the index it had.
    mutating func remove(id: Int) -> (emoji: Emoji, index: Int)? {
        guard let emoji = table.removeValue(forKey: id), let index = order.firstIndex(of: id) else {
            return nil
        }
        order.remove(at: index)
        return (emoji, index)
    }

    /// Puts each emoji named at its index; the others keep their order in the places left.
    /// The ids exist and the indices are distinct and within the collection (the caller checks).
    /// - Returns: where the emojis named were, in drawing order: the places that undo this.
    mutating func place(_ places: [EmojiIndex]) -> [EmojiIndex] {
        var placed = [Int?](repeating: nil, count: order.count)
        for place in places { placed[place.index] = place.id }
        let moving = Set(places.map(\.id))
        var old: [EmojiIndex] = []
        old.reserveCapacity(places.count)
        var rest = order.lazy.filter { !moving.contains($0) }.makeIterator()
        for (index, id) in order.enumerated() where moving.contains(id) {
            old.append(EmojiIndex(id: id, index: index))
        }
        order = placed.map { $0 ?? rest.next()! }
        return old
    }

    mutating func update(id: Int, _ change: (inout Emoji) -> Void) {
        guard var emoji = table[id] else { return }
        change(&emoji)
        table[id] = emoji
    }
}

extension EmojiCollection: RandomAccessCollection {
    public var startIndex: Int { 0 }
    public var endIndex: Int { order.count }

    public subscript(position: Int) -> Emoji {
        // Every id in `order` is in `table`: both change together in the mutators above.
        table[order[position]]!
    }
}
