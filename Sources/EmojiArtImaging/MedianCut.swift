/// A palette of at most 256 colours for pictures that must be indexed (GIF), chosen by median
/// cut in OKLab: the picture's colours (laid on white, to 5 bits a channel) are split again and
/// again — the box with the most pixels times its longest side, along that side, at the
/// pixel-weighted median — so colours people tell apart get their own entry, and each entry is
/// its box's mean in linear light. One palette serves every frame of an animation, so the
/// frames share their colours and nothing flickers between them.
public struct IndexedPalette: Sendable {
    /// The colours, red, green, blue, one byte each.
    public let rgb: [UInt8]
    private let lab: [OKLab]
    /// Each 15-bit colour's nearest entry, filled as colours are met.
    private var nearest: [Int16]

    public var count: Int { lab.count }

    /// A colour's 15-bit key (5 bits a channel), of a premultiplied BGRA pixel laid on white.
    @inline(__always)
    static func key(_ pixels: UnsafeBufferPointer<UInt8>, _ offset: Int) -> Int {
        let white = 255 - Int(pixels[offset + 3])
        let r = Int(pixels[offset + 2]) + white
        let g = Int(pixels[offset + 1]) + white
        let b = Int(pixels[offset]) + white
        return (min(r, 255) >> 3) << 10 | (min(g, 255) >> 3) << 5 | (min(b, 255) >> 3)
    }

    static func light(ofKey key: Int) -> LinearRGB {
        func channel(_ value: Int) -> UInt8 { UInt8(value << 3 | value >> 2) }
        return LinearRGB(srgb: channel(key >> 10 & 31), channel(key >> 5 & 31), channel(key & 31))
    }

    /// The palette for `bitmaps` together (at most `maximumColors`, 2–256), from every pixel or,
    /// for large inputs, an even sample of about `samplePixels`.
    public init(for bitmaps: [Bitmap], maximumColors: Int = 256, samplePixels: Int = 4_000_000) {
        precondition((2...256).contains(maximumColors), "a palette of 2 to 256 colours")
        var counts = [Int](repeating: 0, count: 32_768)
        let total = bitmaps.reduce(0) { $0 + $1.width * $1.height }
        let step = max(1, total / max(samplePixels, 1))
        for bitmap in bitmaps {
            bitmap.pixels.withUnsafeBufferPointer { pixels in
                var index = 0
                let count = bitmap.width * bitmap.height
                while index < count {
                    counts[Self.key(pixels, index * 4)] += 1
                    index += step
                }
            }
        }
        // The colours present, in OKLab, with how many pixels have each.
        var keys = counts.indices.filter { counts[$0] > 0 }
        if keys.isEmpty { keys = [32_767] }
        let colors = Dictionary(uniqueKeysWithValues: keys.map { ($0, OKLab(Self.light(ofKey: $0))) })
        func axis(_ color: OKLab, _ axis: Int) -> Double { axis == 0 ? color.l : axis == 1 ? color.a : color.b }
        struct Box {
            var keys: [Int]
            var weight: Int
            var extent: Double
            var axis: Int
        }
        func box(_ keys: [Int]) -> Box {
            var widest = (extent: -1.0, axis: 0)
            for candidate in 0..<3 {
                let values = keys.map { axis(colors[$0]!, candidate) }
                let extent = (values.max() ?? 0) - (values.min() ?? 0)
                if extent > widest.extent { widest = (extent, candidate) }
            }
            return Box(keys: keys, weight: keys.reduce(0) { $0 + counts[$1] }, extent: widest.extent, axis: widest.axis)
        }
        var boxes = [box(keys)]
        while boxes.count < maximumColors {
            guard
                let chosen = boxes.indices.filter({ boxes[$0].keys.count > 1 }).max(by: {
                    Double(boxes[$0].weight) * boxes[$0].extent < Double(boxes[$1].weight) * boxes[$1].extent
                })
            else { break }
            let splitting = boxes.remove(at: chosen)
            let sorted = splitting.keys.sorted { axis(colors[$0]!, splitting.axis) < axis(colors[$1]!, splitting.axis) }
            var half = 0
            var cut = 1
            for (index, key) in sorted.enumerated().dropLast() {
                half += counts[key]
                cut = index + 1
                if half * 2 >= splitting.weight { break }
            }
            boxes.append(box(Array(sorted[..<cut])))
            boxes.append(box(Array(sorted[cut...])))
        }
        var rgb: [UInt8] = []
        var lab: [OKLab] = []
        for box in boxes {
            var sum = (r: 0.0, g: 0.0, b: 0.0)
            for key in box.keys {
                let light = Self.light(ofKey: key)
                let weight = Double(counts[key])
                sum = (sum.r + light.r * weight, sum.g + light.g * weight, sum.b + light.b * weight)
            }
            let weight = Double(max(box.weight, 1))
            let mean = LinearRGB(r: sum.r / weight, g: sum.g / weight, b: sum.b / weight)
            let encoded = mean.srgb
            rgb += [encoded.red, encoded.green, encoded.blue]
            lab.append(OKLab(mean))
        }
        self.rgb = rgb
        self.lab = lab
        self.nearest = Array(repeating: -1, count: 32_768)
    }

    /// Each pixel of `bitmap` (laid on white) as the index of its nearest colour (OKLab).
    public mutating func indices(of bitmap: Bitmap) -> [UInt8] {
        var result = [UInt8](repeating: 0, count: bitmap.width * bitmap.height)
        bitmap.pixels.withUnsafeBufferPointer { pixels in
            for index in result.indices {
                let key = Self.key(pixels, index * 4)
                var entry = nearest[key]
                if entry < 0 {
                    let color = OKLab(Self.light(ofKey: key))
                    var best = (index: 0, distance: Double.infinity)
                    for (candidate, other) in lab.enumerated() {
                        let (dl, da, db) = (color.l - other.l, color.a - other.a, color.b - other.b)
                        let distance = dl * dl + da * da + db * db
                        if distance < best.distance { best = (candidate, distance) }
                    }
                    entry = Int16(best.index)
                    nearest[key] = entry
                }
                result[index] = UInt8(entry)
            }
        }
        return result
    }
}
