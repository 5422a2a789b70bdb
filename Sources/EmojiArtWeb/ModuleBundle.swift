import Foundation

/// One page's script as one file: the module it names (`js/editor.js`) and every module it
/// imports, in the order a browser evaluates them, so the page fetches one script instead of a
/// waterfall of eighty, six levels deep (docs/PERFORMANCE.md, "Start-up"). There is no build
/// step: the server writes a bundle from the files when it is asked for one (``AppShell``), and
/// a source map beside it shows the files themselves in the browser's tools.
///
/// Each module becomes a function called once, in the browser's order (depth first, in the order
/// of the imports, each module after what it imports), that returns what the module exports:
///
///     const __module_3 = (() => {
///     const { el, notify } = __module_1;      // was: import { el, notify } from "./dom.js";
///     class Canvas { … }                      // was: export class Canvas { … }
///     return { Canvas };
///     })();
///
/// That is the same program as long as the modules keep to the forms this codebase writes, which
/// the bundler checks and otherwise refuses with the file and line: imports at the start of a
/// line, of names (`import { a, b as c } from "./x.js"`) or of the whole module (`import * as m
/// from "./x.js"`), from a relative path inside the folder; exports of a declaration (`export
/// function`, `export async function`, `export class`, `export const` of one name) — never
/// reassigned, so a copy of the value is the binding; no cycles (a module would read another
/// before it ran); no `import.meta`, and no `import()` of a module (it would be a second copy).
/// Every line of a module stays one line of the bundle, so the map is a line for a line.
public struct ModuleBundle: Sendable, Equatable {
    /// The script: the modules, then a comment naming the map.
    public var script: String
    /// A source map (version 3) from the script's lines to the modules' lines.
    public var sourceMap: String
    /// The modules in it, in order (URL paths, "/js/dom.js"), the entry last.
    public var modules: [String]

    /// What the bundler refuses, with where.
    public struct Refusal: Error, CustomStringConvertible, Equatable {
        public var file: String
        public var line: Int
        public var reason: String
        public var description: String { "\(file):\(line): \(reason)" }
    }

    /// The bundle of `entry` (a path relative to `directory`, "js/editor.js"), named
    /// `name` in its map ("editor.js", the map's own name being `name` + ".map").
    public static func write(entry: String, name: String, directory: String) throws -> ModuleBundle {
        let root = URL(fileURLWithPath: directory, isDirectory: true).standardizedFileURL
        var order: [String] = []
        var parsed: [String: ParsedModule] = [:]
        var visiting: [String] = []
        func visit(_ path: String, from importer: (file: String, line: Int)?) throws {
            if parsed[path] != nil { return }
            if let start = visiting.firstIndex(of: path) {
                let cycle = (visiting[start...] + [path]).joined(separator: " → ")
                throw Refusal(
                    file: importer?.file ?? path, line: importer?.line ?? 1, reason: "an import cycle: \(cycle)")
            }
            let url = root.appendingPathComponent(path)
            guard let data = FileManager.default.contents(atPath: url.path) else {
                throw Refusal(
                    file: importer?.file ?? path, line: importer?.line ?? 1, reason: "no such module: \(path)")
            }
            let module = try ParsedModule(path: path, source: String(decoding: data, as: UTF8.self))
            visiting.append(path)
            for dependency in module.imports { try visit(dependency.path, from: (path, dependency.line)) }
            visiting.removeLast()
            parsed[path] = module
            order.append(path)
        }
        try visit(entry, from: nil)
        // Every name imported is one the module exports (a name it doesn't would be undefined).
        for path in order {
            for statement in parsed[path]!.imports {
                let exported = Set(parsed[statement.path]!.exports)
                if let missing = statement.names.first(where: { !exported.contains($0) }) {
                    throw Refusal(
                        file: path, line: statement.line,
                        reason: "\(statement.path) has no `export` of \(missing) that can be bundled")
                }
            }
        }

        let names = Dictionary(uniqueKeysWithValues: order.enumerated().map { ($1, "__module_\($0)") })
        var lines: [String] = [
            "// One script of the modules below, written by the server from their files (ModuleBundle.swift).",
            "// Its map shows each file as it is: \(name).map.",
        ]
        var map = SourceMapLines()
        map.skip(lines.count)
        for (index, path) in order.enumerated() {
            let module = parsed[path]!
            lines.append("const \(names[path]!) = (() => {")
            map.skip(1)
            for (number, line) in module.lines(naming: names).enumerated() {
                lines.append(line)
                map.line(source: index, line: number)
            }
            lines.append("return { \(module.exports.joined(separator: ", ")) };")
            lines.append("})();")
            map.skip(2)
        }
        lines.append("//# sourceMappingURL=\(name).map")
        let sources = order.map { "/" + $0 }
        let mapJSON = try JSONSerialization.data(
            withJSONObject: [
                "version": 3, "file": name, "sources": sources, "names": [String](), "mappings": map.mappings,
            ] as [String: Any], options: [.sortedKeys, .withoutEscapingSlashes])
        return ModuleBundle(
            script: lines.joined(separator: "\n") + "\n", sourceMap: String(decoding: mapJSON, as: UTF8.self),
            modules: sources)
    }
}

/// One module's imports and exports, read from its lines.
struct ParsedModule {
    struct Import {
        var path: String  // relative to the folder, "js/dom.js"
        var line: Int  // 1-based, where the statement starts
        var lineCount: Int
        var bindings: String  // "{ a, b: c }", or the namespace's name
        var names: [String] = []  // the names imported ("a", "b"), none for a namespace
    }

    var path: String
    var source: [Substring]
    var imports: [Import] = []
    var exports: [String] = []
    /// The lines where an `export ` keyword is to be removed.
    var exportLines: Set<Int> = []

    init(path: String, source text: String) throws {
        self.path = path
        source = text.split(separator: "\n", omittingEmptySubsequences: false)
        if source.last == "" { source.removeLast() }
        var index = 0
        while index < source.count {
            let line = source[index]
            if line.hasPrefix("import ") || line.hasPrefix("import{") || line == "import" {
                // The statement runs to its closing `;` (a list of names may take several lines).
                var end = index
                while !source[end].contains(";"), end + 1 < source.count { end += 1 }
                let statement = source[index...end].joined(separator: " ")
                imports.append(try Self.readImport(statement, in: path, line: index + 1, lineCount: end - index + 1))
                index = end + 1
                continue
            }
            if line.hasPrefix("export ") || line.hasPrefix("export{") {
                exports.append(try Self.exportedName(line, in: path, line: index + 1))
                exportLines.insert(index)
            }
            if !Self.isComment(line), line.filter({ $0 == "`" }).count % 2 == 1 {
                throw ModuleBundle.Refusal(
                    file: path, line: index + 1,
                    reason:
                        "a template literal over several lines can't be bundled (its lines would lose their indentation)"
                )
            }
            if line.contains("import.meta") || Self.callsImport(line), !Self.isComment(line) {
                throw ModuleBundle.Refusal(
                    file: path, line: index + 1, reason: "import.meta and import() can't be bundled")
            }
            index += 1
        }
    }

    /// Whether the line has `import(` (a module loaded later, which would be a second copy).
    static func callsImport(_ line: Substring) -> Bool {
        var rest = line[...]
        while let found = rest.range(of: "import") {
            let before = found.lowerBound == line.startIndex ? nil : line[line.index(before: found.lowerBound)]
            let after = line[found.upperBound...].drop(while: { $0 == " " }).first
            if after == "(",
                before.map({ !($0.isLetter || $0.isNumber || $0 == "_" || $0 == "$" || $0 == ".") }) ?? true
            {
                return true
            }
            rest = line[found.upperBound...]
        }
        return false
    }

    static func isComment(_ line: Substring) -> Bool {
        let trimmed = line.drop { $0 == " " }
        return trimmed.hasPrefix("//") || trimmed.hasPrefix("*") || trimmed.hasPrefix("/*")
    }

    static func readImport(_ statement: String, in file: String, line: Int, lineCount: Int) throws -> Import {
        let refuse = { (reason: String) in ModuleBundle.Refusal(file: file, line: line, reason: reason) }
        let unreadable = refuse(
            "only `import { … } from \"./x.js\";` and `import * as x from \"./x.js\";` are bundled")
        var rest = Substring(statement).dropFirst("import".count).drop(while: \.isWhitespace)
        var bindings: String
        var imported: [String] = []
        if rest.first == "{" {
            guard let close = rest.firstIndex(of: "}") else { throw unreadable }
            var parts: [String] = []
            for name in rest[rest.index(after: rest.startIndex)..<close].split(separator: ",") {
                let words = name.split(whereSeparator: \.isWhitespace)
                switch words.count {
                case 0: continue  // a trailing comma
                case 1 where isIdentifier(words[0]): parts.append(String(words[0]))
                case 3 where isIdentifier(words[0]) && words[1] == "as" && isIdentifier(words[2]):
                    parts.append("\(words[0]): \(words[2])")
                default: throw refuse("can't read the import of \(name.trimmingCharacters(in: .whitespaces))")
                }
                imported.append(String(words[0]))
            }
            bindings = "{ " + parts.joined(separator: ", ") + " }"
            rest = rest[rest.index(after: close)...]
        } else if rest.first == "*" {
            let words = rest.dropFirst().split(whereSeparator: \.isWhitespace)
            guard words.count >= 3, words[0] == "as", isIdentifier(words[1]), words[2] == "from" else {
                throw unreadable
            }
            bindings = String(words[1])
            rest = rest[words[1].endIndex...]
        } else {
            throw unreadable
        }
        rest = rest.drop(while: \.isWhitespace)
        guard rest.hasPrefix("from") else { throw unreadable }
        rest = rest.dropFirst("from".count).drop(while: \.isWhitespace)
        guard rest.first == "\"", let close = rest.dropFirst().firstIndex(of: "\"") else { throw unreadable }
        let from = String(rest[rest.index(after: rest.startIndex)..<close])
        guard rest[rest.index(after: close)...].trimmingCharacters(in: .whitespaces) == ";" else { throw unreadable }
        guard from.hasPrefix("./") || from.hasPrefix("../") else { throw refuse("\(from) is not a relative path") }
        let base = URL(fileURLWithPath: "/" + file).deletingLastPathComponent()
        let resolved = base.appendingPathComponent(from).standardizedFileURL.path
        guard resolved.hasPrefix("/js/") else { throw refuse("\(from) is outside js/") }
        return Import(
            path: String(resolved.dropFirst()), line: line, lineCount: lineCount, bindings: bindings, names: imported)
    }

    static func isIdentifier(_ word: Substring) -> Bool {
        guard let first = word.first, !first.isNumber else { return false }
        return word.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "$" }
    }

    /// The name `export function|async function|class|const NAME` declares.
    static func exportedName(_ line: Substring, in file: String, line number: Int) throws -> String {
        var words = line.split(whereSeparator: \.isWhitespace).dropFirst()  // "export"
        if words.first == "async" { words = words.dropFirst() }
        if let kind = words.first, ["function", "function*", "class", "const"].contains(kind), words.count > 1 {
            let name = words[words.startIndex + 1].prefix { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "$" }
            if isIdentifier(name) { return String(name) }
        }
        throw ModuleBundle.Refusal(
            file: file, line: number, reason: "only `export` of one function, class or const is bundled")
    }

    /// The module's lines with its imports read from the modules before it (`names`) and its
    /// exports as plain declarations — without comments that fill whole lines, and without
    /// indentation, which the browser would only fetch and read past (the map shows the file
    /// as it is); as many lines as the file has.
    func lines(naming names: [String: String]) -> [String] {
        var lines = source.map { String($0.drop { $0 == " " || $0 == "\t" }) }
        var index = 0
        while index < lines.count {
            let line = lines[index]
            if line.hasPrefix("//") {
                lines[index] = ""
            } else if line.hasPrefix("/*"), let end = lines[index...].firstIndex(where: { $0.contains("*/") }),
                lines[end].hasSuffix("*/"), lines[end].components(separatedBy: "*/").count == 2
            {
                // A block that ends its last line: every line of it goes.
                for blank in index...end { lines[blank] = "" }
                index = end
            }
            index += 1
        }
        for statement in imports {
            let start = statement.line - 1
            lines[start] = "const \(statement.bindings) = \(names[statement.path]!);"
            for extra in 1..<max(statement.lineCount, 1) { lines[start + extra] = "" }
        }
        for index in exportLines { lines[index] = String(lines[index].dropFirst("export ".count)) }
        return lines
    }
}

/// A source map's `mappings` for a script whose lines are either a module's line (at its first
/// column) or nothing of any module's.
struct SourceMapLines {
    private(set) var mappings = ""
    private var previousSource = 0
    private var previousLine = 0
    private var lineCount = 0

    mutating func skip(_ count: Int) {
        for _ in 0..<count { next() }
    }

    mutating func line(source: Int, line: Int) {
        next()
        mappings += Self.vlq(0) + Self.vlq(source - previousSource) + Self.vlq(line - previousLine) + Self.vlq(0)
        previousSource = source
        previousLine = line
    }

    private mutating func next() {
        if lineCount > 0 { mappings += ";" }
        lineCount += 1
    }

    static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")

    /// A number in base-64 VLQ, as source maps write them.
    static func vlq(_ value: Int) -> String {
        var rest = value < 0 ? ((-value) << 1) | 1 : value << 1
        var text = ""
        repeat {
            var digit = rest & 31
            rest >>= 5
            if rest > 0 { digit |= 32 }
            text.append(alphabet[digit])
        } while rest > 0
        return text
    }
}
