import Foundation

/// A colour in OKLab (Björn Ottosson, 2020): `l` is lightness (0 black … 1 white), `a` runs
/// green to red and `b` blue to yellow. The straight-line distance between two colours is close
/// to how different people see them (ΔE; about 0.02 is just noticeable), which is why every
/// colour the mosaic compares is in this space.
public struct OKLab: Hashable, Sendable, CustomStringConvertible {
    public var l: Double
    public var a: Double
    public var b: Double

    public init(l: Double, a: Double, b: Double) {
        self.l = l
        self.a = a
        self.b = b
    }

    /// The colour of light `linear` (sRGB primaries, linear light, each 0–1).
    public init(_ linear: LinearRGB) {
        let l = 0.412_221_470_8 * linear.r + 0.536_332_536_3 * linear.g + 0.051_445_992_9 * linear.b
        let m = 0.211_903_498_2 * linear.r + 0.680_699_545_1 * linear.g + 0.107_396_956_6 * linear.b
        let s = 0.088_302_461_9 * linear.r + 0.281_718_837_6 * linear.g + 0.629_978_700_5 * linear.b
        let (l3, m3, s3) = (cbrt(l), cbrt(m), cbrt(s))
        self.l = 0.210_454_255_3 * l3 + 0.793_617_785_0 * m3 - 0.004_072_046_8 * s3
        self.a = 1.977_998_495_1 * l3 - 2.428_592_205_0 * m3 + 0.450_593_709_9 * s3
        self.b = 0.025_904_037_1 * l3 + 0.782_771_766_2 * m3 - 0.808_675_766_0 * s3
    }

    /// The same colour in linear sRGB (components may fall outside 0–1 for colours sRGB can't show).
    public var linear: LinearRGB {
        let l3 = l + 0.396_337_777_4 * a + 0.215_803_757_3 * b
        let m3 = l - 0.105_561_345_8 * a - 0.063_854_172_8 * b
        let s3 = l - 0.089_484_177_5 * a - 1.291_485_548_0 * b
        let (l1, m1, s1) = (l3 * l3 * l3, m3 * m3 * m3, s3 * s3 * s3)
        return LinearRGB(
            r: 4.076_741_662_1 * l1 - 3.307_711_591_3 * m1 + 0.230_969_929_2 * s1,
            g: -1.268_438_004_6 * l1 + 2.609_757_401_1 * m1 - 0.341_319_396_5 * s1,
            b: -0.004_196_086_3 * l1 - 0.703_418_614_7 * m1 + 1.707_614_701_0 * s1)
    }

    /// ΔE: the distance between the two colours.
    public func distance(to other: OKLab) -> Double {
        let (dl, da, db) = (l - other.l, a - other.a, b - other.b)
        return (dl * dl + da * da + db * db).squareRoot()
    }

    public static let white = OKLab(LinearRGB(r: 1, g: 1, b: 1))

    public var description: String {
        String(format: "OKLab(%.3f, %.3f, %.3f)", l, a, b)
    }
}

/// Light in sRGB's primaries, linear (each 0–1): where colours are averaged and laid over white,
/// since light adds up there and not in gamma-encoded bytes.
public struct LinearRGB: Hashable, Sendable {
    public var r: Double
    public var g: Double
    public var b: Double

    public init(r: Double, g: Double, b: Double) {
        self.r = r
        self.g = g
        self.b = b
    }

    /// The light of an 8-bit sRGB colour.
    public init(srgb red: UInt8, _ green: UInt8, _ blue: UInt8) {
        self.init(r: Self.decoded[Int(red)], g: Self.decoded[Int(green)], b: Self.decoded[Int(blue)])
    }

    /// Each 8-bit sRGB value's linear light (IEC 61966-2-1).
    public static let decoded: [Double] = (0..<256).map { value in
        let c = Double(value) / 255
        return c <= 0.040_45 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4)
    }

    /// The nearest 8-bit sRGB colour.
    public var srgb: (red: UInt8, green: UInt8, blue: UInt8) {
        func encode(_ value: Double) -> UInt8 {
            let c = min(max(value, 0), 1)
            let encoded = c <= 0.003_130_8 ? c * 12.92 : 1.055 * pow(c, 1 / 2.4) - 0.055
            return UInt8((encoded * 255).rounded())
        }
        return (encode(r), encode(g), encode(b))
    }

    /// This colour covering `coverage` (0–1) of white: what a partly transparent pixel, or an
    /// emoji that fills part of its cell, looks like on the white canvas.
    public func overWhite(coverage: Double) -> LinearRGB {
        LinearRGB(r: r * coverage + 1 - coverage, g: g * coverage + 1 - coverage, b: b * coverage + 1 - coverage)
    }
}
