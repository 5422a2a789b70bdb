import EmojiArtImaging
import EmojiArtKit
import Foundation

/// Five photos drawn in code, for the mosaic's tests and benchmark (`emojiart-bench mosaic`):
/// a face-like gradient, a landscape, a logo with flat colours and transparency, a dark picture
/// and a bright one, each with a little deterministic grain like a camera's.
public enum SamplePhotos {
    public static let names = ["face", "landscape", "logo", "dark", "bright"]

    /// The photo `name`, `width` × `height` pixels.
    public static func photo(_ name: String, width: Int = 1200, height: Int = 900) -> Bitmap {
        var random = SplitMix64(seed: UInt64(names.firstIndex(of: name) ?? 0) + 7)
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                let u = Double(x) / Double(width)
                let v = Double(y) / Double(height)
                var (r, g, b, a): (Double, Double, Double, Double)
                switch name {
                case "face": (r, g, b, a) = face(u, v)
                case "landscape": (r, g, b, a) = landscape(u, v)
                case "logo": (r, g, b, a) = logo(u, v)
                case "dark": (r, g, b, a) = dark(u, v)
                default: (r, g, b, a) = bright(u, v)
                }
                if name != "logo" {
                    let grain = Double(Int(random.next() % 17) - 8) / 255
                    (r, g, b) = (r + grain, g + grain, b + grain)
                }
                let offset = (y * width + x) * 4
                let alpha = min(max(a, 0), 1)
                pixels[offset] = UInt8((min(max(b, 0), 1) * alpha * 255).rounded())
                pixels[offset + 1] = UInt8((min(max(g, 0), 1) * alpha * 255).rounded())
                pixels[offset + 2] = UInt8((min(max(r, 0), 1) * alpha * 255).rounded())
                pixels[offset + 3] = UInt8((alpha * 255).rounded())
            }
        }
        return Bitmap(width: width, height: height, pixels: pixels)
    }

    static func inEllipse(_ u: Double, _ v: Double, _ cu: Double, _ cv: Double, _ ru: Double, _ rv: Double) -> Double {
        let du = (u - cu) / ru
        let dv = (v - cv) / rv
        return du * du + dv * dv
    }

    /// A skin-toned oval lit from the left, dark hair, eyes and a mouth, on a blue-grey wall.
    static func face(_ u: Double, _ v: Double) -> (Double, Double, Double, Double) {
        let head = inEllipse(u, v, 0.5, 0.52, 0.24, 0.36)
        if inEllipse(u, v, 0.5, 0.3, 0.26, 0.2) < 1, v < 0.32 { return (0.25, 0.15, 0.08, 1) }
        if head < 1 {
            if inEllipse(u, v, 0.41, 0.47, 0.045, 0.025) < 1 || inEllipse(u, v, 0.59, 0.47, 0.045, 0.025) < 1 {
                return (0.2, 0.3, 0.45, 1)
            }
            if inEllipse(u, v, 0.5, 0.72, 0.09, 0.03) < 1 { return (0.75, 0.25, 0.3, 1) }
            let light = 1.05 - 0.4 * u - 0.2 * head
            return (0.95 * light, 0.75 * light, 0.62 * light, 1)
        }
        return (0.45 - 0.2 * v, 0.55 - 0.2 * v, 0.7 - 0.15 * v, 1)
    }

    /// Sky from deep to pale blue, a sun, green hills, a brown field.
    static func landscape(_ u: Double, _ v: Double) -> (Double, Double, Double, Double) {
        let hill = 0.55 + 0.08 * sin(u * 7) + 0.04 * sin(u * 17 + 1)
        if v > 0.82 { return (0.5 - 0.1 * u, 0.35, 0.18, 1) }
        if v > hill { return (0.2 + 0.1 * u, 0.55 - 0.2 * (v - hill), 0.2, 1) }
        if inEllipse(u, v, 0.75, 0.2, 0.06, 0.08) < 1 { return (1, 0.85, 0.3, 1) }
        return (0.25 + 0.5 * v, 0.45 + 0.4 * v, 0.85 + 0.1 * v, 1)
    }

    /// A red disc, a yellow star-like diamond and a blue bar on a transparent background.
    static func logo(_ u: Double, _ v: Double) -> (Double, Double, Double, Double) {
        if abs(u - 0.5) + abs(v - 0.5) < 0.12 { return (1, 0.85, 0.1, 1) }
        if inEllipse(u, v, 0.5, 0.5, 0.3, 0.4) < 1 { return (0.85, 0.1, 0.12, 1) }
        if abs(v - 0.85) < 0.05, abs(u - 0.5) < 0.4 { return (0.1, 0.25, 0.8, 1) }
        return (0, 0, 0, 0)
    }

    /// Night: a near-black sky over a dim town, a few lit windows and a pale moon.
    static func dark(_ u: Double, _ v: Double) -> (Double, Double, Double, Double) {
        if inEllipse(u, v, 0.2, 0.2, 0.05, 0.066) < 1 { return (0.75, 0.75, 0.65, 1) }
        let roof = 0.6 + 0.1 * ((u * 8).truncatingRemainder(dividingBy: 1) < 0.5 ? 1 : 0)
        if v > roof {
            let window =
                (u * 40).truncatingRemainder(dividingBy: 1) < 0.3 && (v * 30).truncatingRemainder(dividingBy: 1) < 0.3
            return window && u > 0.3 ? (0.6, 0.45, 0.15, 1) : (0.08, 0.07, 0.1, 1)
        }
        return (0.02 + 0.05 * v, 0.03 + 0.05 * v, 0.1 + 0.1 * v, 1)
    }

    /// High key: pale yellow to pink, a white cloud and light blue shapes.
    static func bright(_ u: Double, _ v: Double) -> (Double, Double, Double, Double) {
        if inEllipse(u, v, 0.35, 0.35, 0.2, 0.12) < 1 { return (1, 1, 1, 1) }
        if inEllipse(u, v, 0.7, 0.65, 0.15, 0.2) < 1 { return (0.7, 0.85, 1, 1) }
        return (1, 0.95 - 0.1 * v, 0.8 + 0.1 * u, 1)
    }
}
