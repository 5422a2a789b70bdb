import Foundation
import HTTPTypes
import Testing

@testable import EmojiArtServer
@testable import EmojiArtWeb

/// One script per page (docs/PERFORMANCE.md, "Start-up"): the modules in the order a browser
/// runs them, each line where its map says, and what the bundler can't bundle refused by file
/// and line rather than written wrong.
@Suite struct ModuleBundleTests {
    /// A folder of modules: `files` (path under js/ → text).
    func folder(_ files: [String: String]) throws -> URL {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("bundle-\(UUID())")
        for (path, text) in files {
            let url = root.appendingPathComponent("js").appendingPathComponent(path)
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: url)
        }
        return root
    }

    func bundle(_ files: [String: String], entry: String = "main.js") throws -> ModuleBundle {
        let root = try folder(files)
        defer { try? FileManager.default.removeItem(at: root) }
        return try ModuleBundle.write(entry: "js/" + entry, name: entry, directory: root.path)
    }

    func refusal(_ files: [String: String]) throws -> ModuleBundle.Refusal? {
        do {
            _ = try bundle(files)
            return nil
        } catch let refusal as ModuleBundle.Refusal {
            return refusal
        }
    }

    @Test func modulesComeInTheOrderTheBrowserRunsThem() throws {
        // main imports b then a; b imports a: a runs first (once), then b, then main.
        let bundle = try bundle([
            "main.js": """
            // the page
            import { b } from "./lib/b.js";
            import * as a from "./a.js";
            b(a.one);
            """,
            "lib/b.js": """
            import {
              one,
              two as second,
            } from "../a.js";
            export function b(x) {
              return x + one + second;
            }
            """,
            "a.js": "export const one = 1;\nexport const two = 2;\nexport class Unused {}\n",
        ])
        #expect(bundle.modules == ["/js/a.js", "/js/lib/b.js", "/js/main.js"])
        let lines = bundle.script.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let a = try #require(lines.firstIndex(of: "const __module_0 = (() => {"))
        #expect(
            Array(lines[(a + 1)...(a + 5)]) == [
                "const one = 1;", "const two = 2;", "class Unused {}", "return { one, two, Unused };", "})();",
            ])
        let b = try #require(lines.firstIndex(of: "const __module_1 = (() => {"))
        // The import of four lines is one statement and three empty lines: every line stays put.
        #expect(
            Array(lines[(b + 1)...(b + 6)]) == [
                "const { one, two: second } = __module_0;", "", "", "", "function b(x) {", "return x + one + second;",
            ])
        let main = try #require(lines.firstIndex(of: "const __module_2 = (() => {"))
        #expect(
            Array(lines[(main + 1)...(main + 5)]) == [
                "", "const { b } = __module_1;", "const a = __module_0;", "b(a.one);", "return {  };",
            ])
        #expect(lines.last(where: { !$0.isEmpty }) == "//# sourceMappingURL=main.js.map")
    }

    /// Comments that fill their lines and indentation go (the map shows the files as they are);
    /// a comment beside code, and a block that ends where code goes on, stay.
    @Test func commentLinesAndIndentationAreLeftOut() throws {
        let bundle = try bundle([
            "main.js": """
            // a comment
            /**
             * A block.
             */
            function f() {
              /* one line */
              return 1; // beside code
            }
            /* a block */ f();
            /* two
               lines */ f();
            """
        ])
        let lines = bundle.script.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let start = try #require(lines.firstIndex(of: "const __module_0 = (() => {"))
        #expect(
            Array(lines[(start + 1)...(start + 11)]) == [
                "", "", "", "", "function f() {", "", "return 1; // beside code", "}", "/* a block */ f();", "/* two",
                "lines */ f();",
            ])
    }

    @Test func theMapPutsEveryLineOfTheBundleOnItsModulesLine() throws {
        let bundle = try bundle([
            "main.js": "import { one } from \"./a.js\";\nconsole.log(one);\n",
            "a.js": "// one\nexport const one = 1;\n",
        ])
        let map = try #require(
            try JSONSerialization.jsonObject(with: Data(bundle.sourceMap.utf8)) as? [String: Any])
        #expect(map["version"] as? Int == 3)
        #expect(map["file"] as? String == "main.js")
        #expect(map["sources"] as? [String] == ["/js/a.js", "/js/main.js"])
        // Two lines of heading, then a.js's wrapper, its lines 0 and 1, its return and close;
        // main.js's wrapper, its lines 0 and 1 (source +1, line −1, then +1), its return and close.
        #expect(map["mappings"] as? String == ";;;AAAA;AACA;;;;ACDA;AACA;;")
        #expect(["A", "C", "D", "gB", "hB"] == [0, 1, -1, 16, -16].map(SourceMapLines.vlq))
    }

    @Test func whatCantBeBundledIsRefusedByFileAndLine() throws {
        let cases: [(files: [String: String], file: String, line: Int, says: String)] = [
            (
                [
                    "main.js": "import { a } from \"./a.js\";",
                    "a.js": "import { m } from \"./main.js\";\nexport const a = 1;",
                ],
                "js/a.js", 1, "an import cycle: js/main.js → js/a.js → js/main.js"
            ),
            (["main.js": "import { a } from \"./missing.js\";"], "js/main.js", 1, "no such module: js/missing.js"),
            (
                ["main.js": "import { a } from \"./a.js\";", "a.js": "export const b = 1;"], "js/main.js", 1,
                "js/a.js has no `export` of a"
            ),
            (["main.js": "\nexport default function () {}"], "js/main.js", 2, "only `export` of one function"),
            (["main.js": "export { a };"], "js/main.js", 1, "only `export` of one function"),
            (["main.js": "export let a = 1;"], "js/main.js", 1, "only `export` of one function"),
            (["main.js": "import a from \"./a.js\";"], "js/main.js", 1, "only `import { … } from"),
            (["main.js": "import { a } from \"lib\";"], "js/main.js", 1, "lib is not a relative path"),
            (["main.js": "import { a } from \"../../etc.js\";"], "js/main.js", 1, "is outside js/"),
            (["main.js": "const m = await import(\"./a.js\");"], "js/main.js", 1, "import() can't be bundled"),
            (["main.js": "const url = import.meta.url;"], "js/main.js", 1, "import.meta"),
            (
                ["main.js": "const html = `<p>\n  two lines</p>`;"], "js/main.js", 1,
                "a template literal over several lines"
            ),
        ]
        for (files, file, line, says) in cases {
            let refusal = try #require(try refusal(files), "\(files)")
            #expect(refusal.file == file && refusal.line == line, "\(refusal)")
            #expect(refusal.reason.contains(says), "\(refusal)")
        }
        // A comment may say import( and import.meta; a word ending in import may be called.
        #expect(
            try refusal([
                "main.js":
                    "// import(\"./a.js\") would be a second copy\n/** import.meta */\nconst reimport = (x) => x;\nreimport(1);"
            ]) == nil)
    }

    @Test func everyPageOfTheEditorLoadsOneBundleOfEveryModuleItReaches() throws {
        let pages = try FileManager.default.contentsOfDirectory(atPath: WebFiles.directory).filter {
            $0.hasSuffix(".html")
        }
        var bundled = 0
        for page in pages {
            let html = try String(contentsOfFile: WebFiles.path(page), encoding: .utf8)
            // No page loads a module of js/ itself: each loads its bundle.
            #expect(!html.contains(#"src="/js/"#), "\(page)")
            for match in html.matches(of: #/<script type="module" src="/bundles/([a-z0-9-]+)\.js">/#) {
                let bundle = try #require(try AppShell.bundle(named: "\(match.output.1).js"))
                #expect(bundle.modules.last == "/js/\(match.output.1).js")
                #expect(bundle.script.contains("//# sourceMappingURL=\(match.output.1).js.map"))
                bundled += 1
            }
        }
        #expect(bundled >= 5)
        let editor = try #require(try AppShell.bundle(named: "editor.js"))
        #expect(editor.modules.contains("/js/live.js") && editor.modules.contains("/js/canvas/canvas.js"))
        #expect(try AppShell.bundle(named: "nothing.js") == nil)
        #expect(try AppShell.bundle(named: "../sw.js") == nil)
    }

    @Test func bundlesAreServedToAnyoneAndAskedAgainCheaply() async throws {
        try await withAPI(access: testAccounts) { api in
            let script = try await api.request(.get, "/bundles/editor.js")
            #expect(script.status == .ok)
            #expect(script.headers[.contentType] == "text/javascript; charset=utf-8")
            #expect(script.headers[.cacheControl] == "no-cache")
            let etag = try #require(script.headers[.eTag])
            let again = try await api.request(.get, "/bundles/editor.js", headers: [.ifNoneMatch: etag])
            #expect(again.status == .notModified && again.bytes.isEmpty)
            let map = try await api.request(.get, "/bundles/editor.js.map")
            #expect(map.status == .ok && map.headers[.contentType] == "application/json")
            #expect(try JSONSerialization.jsonObject(with: Data(map.bytes)) is [String: Any])
            for missing in [
                "/bundles/nothing.js", "/bundles/editor.css", "/bundles/..%2Fsw.js", "/bundles/nothing.js.map",
            ] {
                #expect(try await api.request(.get, missing).status.code >= 400, "\(missing)")
            }
        }
    }
}
