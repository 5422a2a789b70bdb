import EmojiArtKit

/// The part of the plane a picture of a document shows, in screen coordinates (y down, the
/// document's origin at (0, 0)): the background image, centred at the origin, and every emoji's
/// square, with a margin.
public struct PictureFrame: Equatable, Sendable {
    public var minX: Double
    public var minY: Double
    public var width: Double
    public var height: Double

    /// The margin around the content, in document points.
    public static let margin = 16.0

    public init(document: EmojiArtDocument, backgroundSize: (width: Int, height: Int)?) {
        var left = Double.infinity
        var top = Double.infinity
        var right = -Double.infinity
        var bottom = -Double.infinity
        if let size = backgroundSize, size.width > 0, size.height > 0 {
            left = -Double(size.width) / 2
            right = Double(size.width) / 2
            top = -Double(size.height) / 2
            bottom = Double(size.height) / 2
        }
        for emoji in document.emojis {
            // A turned emoji's corners reach out to half its diagonal.
            let half = Double(emoji.size) / 2 * (emoji.rotation == 0 ? 1 : 2.0.squareRoot())
            let x = Double(emoji.position.x)
            let y = -Double(emoji.position.y)
            left = min(left, x - half)
            right = max(right, x + half)
            top = min(top, y - half)
            bottom = max(bottom, y + half)
        }
        if !left.isFinite {
            // Nothing to show: a small empty canvas around the origin.
            (left, top, right, bottom) = (-100, -100, 100, 100)
        }
        minX = left - Self.margin
        minY = top - Self.margin
        width = right - left + 2 * Self.margin
        height = bottom - top + 2 * Self.margin
    }

    /// The smallest frame holding both.
    public func union(_ other: PictureFrame) -> PictureFrame {
        var union = self
        union.minX = min(minX, other.minX)
        union.minY = min(minY, other.minY)
        union.width = max(minX + width, other.minX + other.width) - union.minX
        union.height = max(minY + height, other.minY + other.height) - union.minY
        return union
    }
}
