import EmojiArtKit
import Foundation

/// A document as SVG: the background image centred at the origin, every emoji as text at its
/// position, size and rotation in colour-emoji fonts, and a view box that fits both with a margin. Every
/// piece of text is escaped.
public enum SVGRenderer {
    /// How the background image goes into the SVG.
    public enum BackgroundImage: Sendable {
        case none
        /// The image's bytes, as a data URL.
        case embedded(data: Data, mimeType: String, width: Int, height: Int)
        /// A link to the image's address (the size is needed to place it).
        case linked(url: URL, width: Int, height: Int)
    }

    static let fontFamily = "'Noto Color Emoji', 'Apple Color Emoji', 'Segoe UI Emoji', sans-serif"

    public static func render(_ document: EmojiArtDocument, background: BackgroundImage) -> String {
        var size: (width: Int, height: Int)?
        switch background {
        case .none: size = nil
        case .embedded(_, _, let width, let height), .linked(_, let width, let height): size = (width, height)
        }
        let frame = PictureFrame(document: document, backgroundSize: size)
        var svg = """
            <?xml version="1.0" encoding="UTF-8"?>
            <svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" \
            viewBox="\(number(frame.minX)) \(number(frame.minY)) \(number(frame.width)) \(number(frame.height))" \
            width="\(number(frame.width))" height="\(number(frame.height))">
            <title>\(escape(document.title))</title>
            <rect x="\(number(frame.minX))" y="\(number(frame.minY))" width="\(number(frame.width))" \
            height="\(number(frame.height))" fill="#ffffff"/>

            """
        switch background {
        case .none:
            break
        case .embedded(let data, let mimeType, let width, let height):
            svg += image(href: "data:\(mimeType);base64,\(data.base64EncodedString())", width: width, height: height)
        case .linked(let url, let width, let height):
            svg += image(href: url.absoluteString, width: width, height: height)
        }
        svg += "<g font-family=\"\(escape(fontFamily))\" text-anchor=\"middle\" dominant-baseline=\"central\">\n"
        for emoji in document.emojis {
            svg += "<text x=\"\(emoji.position.x)\" y=\"\(-emoji.position.y)\" font-size=\"\(emoji.size)\""
            if emoji.rotation != 0 {
                svg += " transform=\"rotate(\(emoji.rotation) \(emoji.position.x) \(-emoji.position.y))\""
            }
            svg += ">"
            svg += escape(emoji.text)
            svg += "</text>\n"
        }
        svg += "</g>\n</svg>\n"
        return svg
    }

    private static func image(href: String, width: Int, height: Int) -> String {
        let x = number(-Double(width) / 2)
        let y = number(-Double(height) / 2)
        let link = escape(href)
        return
            "<image x=\"\(x)\" y=\"\(y)\" width=\"\(width)\" height=\"\(height)\" href=\"\(link)\" xlink:href=\"\(link)\"/>\n"
    }

    /// Text and attribute values with the five XML specials escaped.
    static func escape(_ text: String) -> String {
        var escaped = ""
        escaped.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&apos;"
            default: escaped.append(character)
            }
        }
        return escaped
    }

    static func number(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(format: "%.2f", value)
    }
}
