import EmojiArtCLI
import EmojiArtKit
import Foundation
import Testing

@Suite("The emojiart command")
struct CLITests {
    @Test func helpListsEveryCommand() {
        let help = EmojiArtCommand.helpMessage()
        for command in [
            "new", "info", "convert", "validate", "add-emoji", "set-background", "render", "palettes", "users",
            "tokens",
            "joke", "emoji", "mosaic",
        ] {
            #expect(help.contains("  \(command) "), "\(command) missing from:\n\(help)")
        }
        #expect(help.contains("cs193p-2021"))
    }

    @Test func palettesAreListedAddedRenamedRemovedAndImportedInTheServersDatabase() async throws {
        let data = try makeTemporaryFolder().path
        let list = await emojiart("palettes", "list", "--data", data)
        #expect(list.exitCode == 0)
        #expect(list.output.hasPrefix("1. Vehicles"))
        #expect(list.output.split(separator: "\n").count == 9)

        let added = await emojiart("palettes", "add", "Mine", "a😀b😀🚀", "--at", "2", "--data", data)
        #expect(added.exitCode == 0 && added.output.hasPrefix("Added Mine 😀🚀"))
        #expect(await emojiart("palettes", "rename", "Mine", "Ours", "--data", data).exitCode == 0)
        #expect(await emojiart("palettes", "remove", "Sports", "--data", data).exitCode == 0)
        let json = await emojiart("palettes", "list", "--json", "--data", data).output
        let names = try #require(
            try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]]
        ).compactMap { $0["name"] as? String }
        #expect(names.prefix(3) == ["Vehicles", "Ours", "Music"])

        let imported = await emojiart(
            "palettes", "import", fixturesDirectory.appendingPathComponent("palettes-2023-Shared.json").path,
            "--data", data)
        #expect(imported.exitCode == 0 && imported.output.contains("Imported 1 palette; 8 already there"))

        let unknown = await emojiart("palettes", "remove", "Nope", "--data", data)
        #expect(unknown.exitCode != 0 && unknown.errors.contains("no palette named \"Nope\""))
        let badFile = await emojiart("palettes", "import", "/nonexistent.json", "--data", data)
        #expect(badFile.exitCode != 0 && badFile.errors.contains("no such file"))
        // Down to one palette: the last is refused.
        let remaining = try #require(
            try JSONSerialization.jsonObject(
                with: Data(await emojiart("palettes", "list", "--json", "--data", data).output.utf8))
                as? [[String: Any]])
        for palette in remaining.dropLast() {
            #expect(
                await emojiart("palettes", "remove", try #require(palette["id"] as? String), "--data", data).exitCode
                    == 0)
        }
        let last = await emojiart("palettes", "remove", try #require(remaining.last?["id"] as? String), "--data", data)
        #expect(last.exitCode != 0 && !last.errors.isEmpty)
        #expect(await emojiart("palettes", "list", "--data", data).output.split(separator: "\n").count == 1)
    }

    @Test func renderDrawsSVGAndPNGAndThePNGOpensAgain() async throws {
        let folder = try makeTemporaryFolder()
        let file = folder.appendingPathComponent("party.emojiart").path
        #expect(await emojiart("new", file, "--title", "Party <&>").exitCode == 0)
        #expect(await emojiart("add-emoji", file, "🇯🇵", "--at", "10,20", "--size", "64").exitCode == 0)
        let svg = folder.appendingPathComponent("party.svg").path
        let svgResult = await emojiart("render", file, "-o", svg)
        #expect(svgResult.exitCode == 0 && svgResult.output.contains("SVG, 1 emoji"))
        let svgText = try String(contentsOfFile: svg, encoding: .utf8)
        #expect(svgText.contains("<title>Party &lt;&amp;&gt;</title>") && svgText.contains(">🇯🇵</text>"))

        let png = folder.appendingPathComponent("party.png").path
        let pngResult = await emojiart("render", file, "-o", png, "--scale", "2")
        #expect(pngResult.exitCode == 0 && pngResult.output.contains("PNG, 192×192 pixels"))
        let copy = folder.appendingPathComponent("copy.emojiart").path
        #expect(await emojiart("convert", png, copy, "--to", "native").exitCode == 0)
        #expect(await emojiart("info", copy).output.contains("Party <&>"))
        let refused = await emojiart("add-emoji", png, "😀", "--at", "0,0")
        #expect(refused.exitCode != 0 && refused.errors.contains("picture of a document"))

        #expect(await emojiart("render", file, "-o", folder.appendingPathComponent("x.gif").path).exitCode != 0)
        #expect(await emojiart("render", file, "-o", png, "--scale", "4").exitCode != 0)
    }

    @Test func mosaicMakesADocumentFromAnyPictureAndFillsOneFromItsBackground() async throws {
        let folder = try makeTemporaryFolder()
        for name in ["noise-64x48.png", "noise-64x48.jpg", "noise-64x48.gif", "noise-64x48-lossless.webp"] {
            let photo = fixturesDirectory.appendingPathComponent("images/\(name)").path
            let file = folder.appendingPathComponent("\(name).emojiart").path
            let made = await emojiart("mosaic", photo, file, "--columns", "10", "--emojis", "🟥🟧🟨🟩🟦🟪⬛⬜")
            #expect(made.exitCode == 0, "\(name): \(made.errors)")
            #expect(made.output.contains("a 10 × 8 mosaic of 80 emojis, 6 points each"), "\(made.output)")
            let info = await emojiart("info", file).output
            #expect(info.contains("Emojis:      80") && info.contains("embedded image/"), "\(info)")
        }
        let document = folder.appendingPathComponent("noise-64x48.png.emojiart").path
        let refilled = await emojiart("mosaic", document, "--columns", "20", "--dither", "--replace")
        #expect(refilled.exitCode == 0 && refilled.output.contains("a 20 × 15 mosaic of 300 emojis"))
        #expect(await emojiart("info", document).output.contains("Emojis:      300"))
        let region = await emojiart("mosaic", document, "--columns", "10", "--region", "0,0,32,24")
        #expect(region.exitCode == 0 && region.output.contains("a 10 × 8 mosaic"), "\(region.errors)")

        let text = await emojiart("render", document, "--to", "text", "--columns", "20")
        #expect(text.exitCode == 0)
        let rows = text.output.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(rows.count == 15 && rows.allSatisfy { $0.count == 20 }, "\(text.output)")

        let blank = folder.appendingPathComponent("blank.emojiart").path
        #expect(await emojiart("new", blank).exitCode == 0)
        let noBackground = await emojiart("mosaic", blank, "--columns", "10")
        #expect(noBackground.exitCode != 0 && noBackground.errors.contains("no background picture"))
        let photo = fixturesDirectory.appendingPathComponent("images/noise-64x48.png").path
        #expect(await emojiart("mosaic", photo, "--columns", "10").exitCode != 0)
        #expect(await emojiart("mosaic", photo, blank, "--columns", "5").exitCode != 0)
        let notEmoji = await emojiart("mosaic", photo, blank, "--columns", "10", "--emojis", "abc")
        #expect(notEmoji.exitCode != 0 && notEmoji.errors.contains("not an emoji"))
        let outside = await emojiart("mosaic", photo, blank, "--columns", "10", "--region", "60,0,10,10")
        #expect(outside.exitCode != 0 && outside.errors.contains("not inside"))
        #expect(await emojiart("info", blank).output.contains("Emojis:      0"))
    }

    @Test func subcommandHelpExplainsArguments() async {
        let addHelp = await emojiart("add-emoji", "--help").output
        #expect(addHelp.contains("USAGE: emojiart add-emoji <file> <emoji> --at <x,y> [--size <size>]"))
        #expect(addHelp.contains("y up"))
        let backgroundHelp = await emojiart("help", "set-background").output
        #expect(backgroundHelp.contains("--image <image>"))
        #expect(backgroundHelp.contains("--none"))
        let convertHelp = await emojiart("convert", "--help").output
        #expect(convertHelp.contains("--to <to>"))
    }

    @Test func newCreatesANativeDocumentAndRefusesToOverwrite() async throws {
        let folder = try makeTemporaryFolder()
        let file = folder.appendingPathComponent("party.emojiart").path
        let created = await emojiart("new", file, "--title", "Party 🎉")
        #expect(created.exitCode == 0)
        #expect(created.output.contains("titled \"Party 🎉\""))
        #expect(try contents(file).hasPrefix(#"{"format":"emojiart","formatVersion":1,"title":"Party 🎉""#))

        let again = await emojiart("new", file)
        #expect(again.exitCode == 1)
        #expect(again.errors == "Error: \(file): already exists; use --force to replace it.")
        #expect(await emojiart("new", file, "--force").exitCode == 0)
        #expect(try contents(file).contains(#""title":"party""#))

        let badTitle = await emojiart("new", folder.appendingPathComponent("x.emojiart").path, "--title", "")
        #expect(badTitle.exitCode == 64)
        #expect(badTitle.errors.contains("a title can't be empty"))
    }

    @Test func infoDescribesADocument() async throws {
        let path = fixturesDirectory.appendingPathComponent("2021-url.emojiart").path
        let info = await emojiart("info", path)
        #expect(info.exitCode == 0)
        #expect(
            info.output == """
                File:        \(path)
                Format:      CS193P EmojiArt 2021
                Title:       2021-url
                Background:  https://upload.wikimedia.org/wikipedia/commons/4/47/PNG_transparency_demonstration_1.png
                Emojis:      2
                Bounds:      x -240…70, y -120…140 (310 × 260 points)
                """)
        let json = await emojiart("info", path, "--json")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any])
        #expect(report["format"] as? String == "cs193p-2021")
        #expect(report["emojiCount"] as? Int == 2)
        #expect((report["bounds"] as? [String: Int])?["minX"] == -240)
        #expect((report["background"] as? [String: Any])?["kind"] as? String == "url")
    }

    @Test func convertKeepsTheContentAndSaysWhatIsLost() async throws {
        let folder = try makeTemporaryFolder()
        let input = fixturesDirectory.appendingPathComponent("2021-url.emojiart").path
        let native = folder.appendingPathComponent("native.emojiart").path
        let modern = folder.appendingPathComponent("2023.emojiart").path
        #expect(await emojiart("convert", input, native, "--to", "native").exitCode == 0)
        let toModern = await emojiart("convert", native, modern, "--to", "cs193p-2023")
        #expect(toModern.exitCode == 0)
        #expect(toModern.errors.contains("note: The CS193P EmojiArt 2023 format has no title"))
        let original = try EmojiArtFile.read(Array(try Data(contentsOf: URL(fileURLWithPath: input))))
        let converted = try EmojiArtFile.read(Array(try Data(contentsOf: URL(fileURLWithPath: modern))))
        #expect(converted.format == .cs193p2023)
        #expect(converted.document.emojis == original.document.emojis)
        #expect(
            try contents(modern)
                == (try contents(fixturesDirectory.appendingPathComponent("2023-url.emojiart").path))
                .replacingOccurrences(of: "\\/", with: "/"))

        let bad = await emojiart("convert", input, native, "--to", "pdf")
        #expect(bad.exitCode == 64)
    }

    @Test func validateGivesAVerdictPerFileAndFailsIfAnyIsInvalid() async throws {
        let folder = try makeTemporaryFolder()
        let fixtures = try FileManager.default.contentsOfDirectory(atPath: fixturesDirectory.path)
            .filter { $0.hasSuffix(".emojiart") }.sorted().map { fixturesDirectory.appendingPathComponent($0).path }
        #expect(fixtures.count == 5)
        let good = await emojiart(["validate"] + fixtures)
        #expect(good.exitCode == 0)
        #expect(good.output.split(separator: "\n").count == 5)
        #expect(good.output.split(separator: "\n").allSatisfy { $0.hasPrefix("ok ") })

        let broken = folder.appendingPathComponent("broken.emojiart").path
        try #"{"emojis":[{"string":"😀","position":{"x":0,"y":0},"size":0,"id":1}],"uniqueEmojiId":1}"#.write(
            toFile: broken, atomically: true, encoding: .utf8)
        let missing = folder.appendingPathComponent("missing.emojiart").path
        let mixed = await emojiart("validate", fixtures[0], broken, missing)
        #expect(mixed.exitCode == 1)
        #expect(mixed.output.contains("invalid  \(broken): emojis[0].size: size 0 is outside 1...1024 points."))
        #expect(mixed.output.contains("invalid  \(missing): no such file."))
        #expect(mixed.errors == "2 of 3 files are invalid.")
    }

    @Test func addEmojiKeepsTheFilesFormat() async throws {
        let folder = try makeTemporaryFolder()
        let file = try copyFixture("2021-url.emojiart", into: folder)
        let added = await emojiart("add-emoji", file, "🐻‍❄️", "--at", "-40,120", "--size", "64")
        #expect(added.exitCode == 0, "\(added.errors)")
        #expect(added.output == "Added 🐻‍❄️ (id 3) at (-40, 120), size 64, to \(file).")
        let decoded = try EmojiArtFile.read(Array(try Data(contentsOf: URL(fileURLWithPath: file))))
        #expect(decoded.format == .cs193p2021)
        #expect(decoded.document.emojis.last == Emoji(id: 3, text: "🐻‍❄️", position: Point(x: -40, y: 120), size: 64))
        #expect(try contents(file).contains(#"{"text":"🐻‍❄️","x":-40,"y":-120,"size":64,"id":3}"#))
    }

    @Test func badEditsLeaveTheFileUntouched() async throws {
        let folder = try makeTemporaryFolder()
        let file = try copyFixture("2023-url.emojiart", into: folder)
        let before = try contents(file)
        let cases: [([String], Int32, String)] = [
            (["add-emoji", file, "ab", "--at", "0,0"], 1, "is not a single emoji"),
            (["add-emoji", file, "😀", "--at", "0,0", "--size", "5000"], 1, "size 5000 is outside 1...1024"),
            (["add-emoji", file, "😀", "--at", "zero"], 64, "The value 'zero' is invalid for '--at <x,y>'"),
            (["add-emoji", file, "😀", "--at", "2000000,0"], 1, "outside the canvas"),
            (["set-background", file, "javascript:alert(1)"], 1, "is not a background"),
            (["set-background", file], 64, "Give exactly one of"),
            (["set-background", file, "https://example.com/a.png", "--none"], 64, "Give exactly one of"),
            (["set-background", file, "--image", file], 1, "is not a PNG, JPEG, GIF or WebP image"),
        ]
        for (arguments, exitCode, message) in cases {
            let result = await emojiart(arguments)
            #expect(result.exitCode == exitCode, "\(arguments): \(result.errors)")
            #expect(result.errors.contains(message), "\(arguments): \(result.errors)")
        }
        #expect(try contents(file) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["2023-url.emojiart"])
    }

    @Test func setBackgroundAcceptsAURLAnImageOrNone() async throws {
        let folder = try makeTemporaryFolder()
        let file = try copyFixture("2021-blank.emojiart", into: folder)
        let image = folder.appendingPathComponent("tiny.png")
        try FileManager.default.copyItem(at: fixturesDirectory.appendingPathComponent("images/red-7x5.png"), to: image)
        let fake = folder.appendingPathComponent("fake.png")
        try Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 1, 2, 3]).write(to: fake)
        let before = try contents(file)

        let refused = await emojiart("set-background", file, "--image", fake.path)
        #expect(refused.exitCode == 1)
        #expect(refused.errors.contains("fake.png: the image can't be used: the PNG file is truncated."))
        #expect(try contents(file) == before)

        #expect(await emojiart("set-background", file, "--image", image.path).exitCode == 0)
        var decoded = try EmojiArtFile.read(Array(try Data(contentsOf: URL(fileURLWithPath: file))))
        #expect(decoded.document.background == .image(data: try Data(contentsOf: image), mimeType: "image/png"))
        #expect(try contents(file).contains(#""imageData":"iVBORw0KGgoAAAANSUhEUgAAAAcAAAAF"#))

        #expect(await emojiart("set-background", file, "https://example.com/cat.jpg").exitCode == 0)
        decoded = try EmojiArtFile.read(Array(try Data(contentsOf: URL(fileURLWithPath: file))))
        #expect(decoded.document.background == .url(URL(string: "https://example.com/cat.jpg")!))

        #expect(await emojiart("set-background", file, "--none").exitCode == 0)
        #expect(try contents(file) == #"{"background":{},"emojis":[],"uniqueEmojiId":0}"#)
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == [
                "2021-blank.emojiart", "fake.png", "tiny.png",
            ])
    }

    @Test func editsRefuseFilesWhoseReadingDroppedData() async throws {
        let folder = try makeTemporaryFolder()
        let file = folder.appendingPathComponent("ipad.emojiart").path
        let original = #"{"background":{"theURL":"file:///private/var/mobile/x.jpg"},"emojis":[],"uniqueEmojiId":0}"#
        try original.write(toFile: file, atomically: true, encoding: .utf8)
        let result = await emojiart("add-emoji", file, "😀", "--at", "0,0")
        #expect(result.exitCode == 1)
        #expect(result.errors.contains("not changed, because saving it would drop data"))
        #expect(try contents(file) == original)
        let validated = await emojiart("validate", file)
        #expect(
            validated.output.contains("note: The background \"file:///private/var/mobile/x.jpg\" is not an http(s) URL")
        )
    }

    @Test func editingKeepsSymlinksAndPermissions() async throws {
        let folder = try makeTemporaryFolder()
        let file = try copyFixture("2021-url.emojiart", into: folder)
        try FileManager.default.setAttributes([.posixPermissions: 0o640], ofItemAtPath: file)
        let link = folder.appendingPathComponent("link.emojiart").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: file)
        let result = await emojiart("add-emoji", link, "🚀", "--at", "1,2")
        #expect(result.exitCode == 0, "\(result.errors)")
        #expect(result.errors.isEmpty, "no note about a title that came from the file name")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == file)
        #expect(try contents(file).contains("🚀"))
        let attributes = try FileManager.default.attributesOfItem(atPath: file)
        #expect((attributes[.posixPermissions] as? Int) == 0o640)
    }

    @Test func fileNamesWithControlCharactersStillGiveATitle() async throws {
        let folder = try makeTemporaryFolder()
        let file = folder.appendingPathComponent("tab\there.emojiart").path
        try #"{"emojis":[],"uniqueEmojiId":0}"#.write(toFile: file, atomically: true, encoding: .utf8)
        let result = await emojiart("info", file)
        #expect(result.exitCode == 0, "\(result.errors)")
        #expect(result.output.contains("Title:       tabhere"))
    }

    @Test func aFolderThatCannotBeWrittenFailsCleanly() async throws {
        let result = await emojiart("new", "/nonexistent-folder/x.emojiart")
        #expect(result.exitCode == 1)
        #expect(result.errors.contains("/nonexistent-folder/x.emojiart: could not be written"))
    }
}

/// The same helper for argument lists built at run time.
func emojiart(_ arguments: [String]) async -> CommandResult {
    await runArguments(arguments)
}
