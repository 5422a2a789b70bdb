import CEmojiRender
import EmojiArtImaging
import EmojiArtKit
import Foundation
import Synchronization

/// What an emoji looks like from afar: the colour of its pixels as a whole and in each quarter of
/// its cell, and how much of the cell they cover. Measured from the very rendering the PNG export
/// uses (Noto Color Emoji through pango and cairo, ``measure(_:side:)``), never written by hand.
public struct EmojiSignature: Hashable, Sendable {
    /// A colour with the share of an area it covers.
    public struct Patch: Hashable, Sendable {
        /// The alpha-weighted mean colour of the pixels (white where there are none).
        public var color: OKLab
        /// The mean alpha over the whole area, 0–1.
        public var coverage: Double

        public init(color: OKLab, coverage: Double) {
            self.color = color
            self.coverage = coverage
        }

        /// How the area looks on the white canvas.
        public var onWhite: OKLab { OKLab(color.linear.overWhite(coverage: coverage)) }
    }

    public var text: String
    /// The whole cell.
    public var whole: Patch
    /// Its quarters: top left, top right, bottom left, bottom right.
    public var quadrants: [Patch]

    public init(text: String, whole: Patch, quadrants: [Patch]) {
        precondition(quadrants.count == 4, "a cell has four quarters")
        self.text = text
        self.whole = whole
        self.quadrants = quadrants
    }

    /// The side of the square an emoji is drawn in to be measured, in pixels: large enough that
    /// each quarter has hundreds of pixels, small enough that the whole catalogue takes seconds.
    public static let measuringSide = 48

    /// Draws `text` in a `side` × `side` square as the PNG export does, and measures it.
    ///
    /// - Throws: if it can't be drawn.
    public static func measure(_ text: String, side: Int = measuringSide) throws -> EmojiSignature {
        var pixels = [UInt8](repeating: 0, count: side * side * 4)
        var message = [CChar](repeating: 0, count: 256)
        let status = pixels.withUnsafeMutableBufferPointer { buffer in
            emoji_render_sprite(text, Int32(side), buffer.baseAddress, &message, message.count)
        }
        guard status == 0 else {
            let reason = String(cMessage: message)
            throw EmojiArtError(.invalidEmoji, "\(text) could not be drawn: \(reason).")
        }
        // Sums per quarter: linear light weighted by alpha, and alpha.
        var sums = [(r: Double, g: Double, b: Double, alpha: Double)](repeating: (0, 0, 0, 0), count: 4)
        let half = side / 2
        for y in 0..<side {
            for x in 0..<side {
                let offset = (y * side + x) * 4
                let alpha = pixels[offset + 3]
                guard alpha > 0 else { continue }
                let quarter = (y < half ? 0 : 2) + (x < half ? 0 : 1)
                let color = Self.unpremultiplied(
                    blue: pixels[offset], green: pixels[offset + 1], red: pixels[offset + 2], alpha: alpha)
                let weight = Double(alpha) / 255
                sums[quarter].r += color.r * weight
                sums[quarter].g += color.g * weight
                sums[quarter].b += color.b * weight
                sums[quarter].alpha += weight
            }
        }
        func patch(_ parts: ArraySlice<(r: Double, g: Double, b: Double, alpha: Double)>, area: Int) -> Patch {
            let r = parts.reduce(0) { $0 + $1.r }
            let g = parts.reduce(0) { $0 + $1.g }
            let b = parts.reduce(0) { $0 + $1.b }
            let alpha = parts.reduce(0) { $0 + $1.alpha }
            guard alpha > 0 else { return Patch(color: .white, coverage: 0) }
            return Patch(
                color: OKLab(LinearRGB(r: r / alpha, g: g / alpha, b: b / alpha)), coverage: alpha / Double(area))
        }
        let quarterArea = half * half
        return EmojiSignature(
            text: text, whole: patch(sums[...], area: side * side),
            quadrants: (0..<4).map { patch(sums[$0...$0], area: quarterArea) })
    }

    /// The linear light of a premultiplied 8-bit pixel (alpha > 0).
    @inline(__always)
    static func unpremultiplied(blue: UInt8, green: UInt8, red: UInt8, alpha: UInt8) -> LinearRGB {
        if alpha == 255 { return LinearRGB(srgb: red, green, blue) }
        let a = Int(alpha)
        func straight(_ value: UInt8) -> UInt8 { UInt8(min(255, (Int(value) * 255 + a / 2) / a)) }
        return LinearRGB(srgb: straight(red), straight(green), straight(blue))
    }
}

/// The signatures of every emoji in the catalogue (tone variants and flags included), as
/// `scripts/generate-emoji-signatures` measured them with this machine's Debian font and
/// committed them (`Signatures/signatures.json`, docs/FORMATS.md): the same for every server and
/// reviewable in a diff when the font changes. An emoji the table lacks (a sequence the catalogue
/// doesn't list) is measured when first asked for and kept (up to ``maximumMeasured`` of them).
public final class EmojiSignatureTable: Sendable {
    /// Where the measurements came from (the font package and version, the renderer).
    public let source: String
    private let table: [String: EmojiSignature]
    private let measured = Mutex<[String: EmojiSignature]>([:])

    /// The table this module carries, or nil if its file is missing (a broken install).
    public static let bundled: EmojiSignatureTable? = {
        guard let url = Bundle.module.url(forResource: "signatures", withExtension: "json", subdirectory: "Signatures"),
            let data = try? Data(contentsOf: url)
        else { return nil }
        return try? EmojiSignatureTable(json: data)
    }()

    /// The fields of a row after the emoji, in order.
    public static let fields = [
        "coverage", "L", "a", "b",
        "topLeft.coverage", "topLeft.L", "topLeft.a", "topLeft.b",
        "topRight.coverage", "topRight.L", "topRight.a", "topRight.b",
        "bottomLeft.coverage", "bottomLeft.L", "bottomLeft.a", "bottomLeft.b",
        "bottomRight.coverage", "bottomRight.L", "bottomRight.a", "bottomRight.b",
    ]

    public init(source: String, signatures: [EmojiSignature]) {
        self.source = source
        self.table = Dictionary(signatures.map { ($0.text, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// Reads the file `json(source:signatures:)` writes.
    public convenience init(json data: Data) throws {
        guard let object = try JSONSerialization.jsonObject(with: data) as? [String: Any],
            let rows = object["signatures"] as? [[Any]]
        else { throw EmojiArtError(.invalidFile, "the emoji signature table is not in its format.") }
        let signatures = try rows.map { row -> EmojiSignature in
            guard row.count == 1 + Self.fields.count, let text = row[0] as? String else {
                throw EmojiArtError(.invalidFile, "a row of the emoji signature table is not in its format.")
            }
            let numbers = try row.dropFirst().map { value -> Double in
                guard let number = value as? NSNumber else {
                    throw EmojiArtError(.invalidFile, "a row of the emoji signature table is not in its format.")
                }
                return number.doubleValue
            }
            func patch(_ at: Int) -> EmojiSignature.Patch {
                .init(color: OKLab(l: numbers[at + 1], a: numbers[at + 2], b: numbers[at + 3]), coverage: numbers[at])
            }
            return EmojiSignature(text: text, whole: patch(0), quadrants: [patch(4), patch(8), patch(12), patch(16)])
        }
        self.init(source: object["source"] as? String ?? "", signatures: signatures)
    }

    /// The table as the committed file has it: one row per emoji, in `order`.
    public static func json(source: String, signatures: [EmojiSignature]) -> String {
        func quoted(_ text: String) -> String {
            var writer = JSONWriter()
            writer.string(text)
            return String(decoding: writer.bytes, as: UTF8.self)
        }
        func number(_ value: Double) -> String {
            let text = String(format: "%.4f", value)
            return text == "-0.0000" ? "0.0000" : text
        }
        var rows: [String] = []
        for signature in signatures {
            var fields: [String] = []
            for patch in [signature.whole] + signature.quadrants {
                fields += [number(patch.coverage), number(patch.color.l), number(patch.color.a), number(patch.color.b)]
            }
            let text = quoted(signature.text)
            rows.append("[\(text),\(fields.joined(separator: ","))]")
        }
        let fieldList = Self.fields.map { "\"\($0)\"" }.joined(separator: ",")
        return """
            {"source":\(quoted(source)),"space":"OKLab","side":\(EmojiSignature.measuringSide),\
            "fields":[\(fieldList)],
            "signatures":[
            \(rows.joined(separator: ",\n"))
            ]}

            """
    }

    public var count: Int { table.count }

    /// The most emojis measured on demand that are kept (each about 300 bytes); beyond that they
    /// are measured each time, so typed sets of invented sequences can't grow memory for ever.
    public static let maximumMeasured = 4_096

    /// The signature of `text`: from the table, or measured now and kept.
    public func signature(of text: String) throws -> EmojiSignature {
        if let known = table[text] { return known }
        if let known = measured.withLock({ $0[text] }) { return known }
        let signature = try EmojiSignature.measure(text)
        measured.withLock { if $0.count < Self.maximumMeasured { $0[text] = signature } }
        return signature
    }

    /// Whether the table holds `text` (without measuring).
    public func contains(_ text: String) -> Bool { table[text] != nil }
}
