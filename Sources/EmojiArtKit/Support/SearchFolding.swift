import Foundation

/// The one way text is made comparable for a search — the emoji catalogue's names and keywords,
/// documents' titles — on the server and, in JavaScript, in the page (js/search-fold.js): what
/// someone types finds what was written whatever its case, accents or width ("cafe" finds
/// "Café", "ｆｕｌｌ" finds "full").
public enum SearchFolding {
    /// Lower case, compatibility-decomposed, without combining marks, spaces collapsed.
    public static func fold(_ text: String) -> String {
        var scalars = String.UnicodeScalarView()
        var space = false
        for scalar in text.lowercased().decomposedStringWithCompatibilityMapping.unicodeScalars {
            switch scalar.properties.generalCategory {
            case .nonspacingMark, .spacingMark, .enclosingMark: continue
            default: break
            }
            // Unicode's White_Space, and U+FEFF as JavaScript's \s has it (the page folds alike).
            if scalar.properties.isWhitespace || scalar == "\u{FEFF}" {
                space = !scalars.isEmpty
                continue
            }
            if space {
                scalars.append(" ")
                space = false
            }
            scalars.append(scalar)
        }
        return String(scalars)
    }
}
