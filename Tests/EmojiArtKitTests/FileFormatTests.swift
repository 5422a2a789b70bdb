import EmojiArtKit
import Foundation
import Testing

@Suite("The .emojiart formats: native, CS193P 2023 and 2021")
struct FileFormatTests {
    static let wikimedia = URL(
        string: "https://upload.wikimedia.org/wikipedia/commons/4/47/PNG_transparency_demonstration_1.png")!

    @Test func the2021URLFixtureOpensWithYFlippedUp() throws {
        let decoded = try EmojiArtFile.read(try fixture("2021-url.emojiart"))
        #expect(decoded.format == .cs193p2021)
        #expect(decoded.document.background == .url(Self.wikimedia))
        #expect(
            Array(decoded.document.emojis) == [
                Emoji(id: 1, text: "😀", position: Point(x: -200, y: 100), size: 80),
                Emoji(id: 2, text: "☀️", position: Point(x: 50, y: -100), size: 40),
            ])
        #expect(decoded.document.nextEmojiID == 3)
        #expect(decoded.notes.isEmpty)
    }

    @Test func the2023URLFixtureHasTheSameContentAsThe2021One() throws {
        let decoded2023 = try EmojiArtFile.read(try fixture("2023-url.emojiart"))
        let decoded2021 = try EmojiArtFile.read(try fixture("2021-url.emojiart"))
        #expect(decoded2023.format == .cs193p2023)
        #expect(decoded2023.document == decoded2021.document)
    }

    @Test func the2021ImageDataFixtureKeepsTheBytes() throws {
        let decoded = try EmojiArtFile.read(try fixture("2021-imagedata-truncated-jpeg.emojiart"))
        #expect(decoded.format == .cs193p2021)
        #expect(
            decoded.document.background
                == .image(data: Data(base64Encoded: "/9j/4AAQSkZJRg==")!, mimeType: "image/jpeg"))
        #expect(Array(decoded.document.emojis) == [Emoji(id: 1, text: "🐶", position: .zero, size: 40)])
    }

    @Test func blankAndEmptyFixturesOpen() throws {
        let blank = try EmojiArtFile.read(try fixture("2021-blank.emojiart"), defaultTitle: "blank")
        #expect(blank.format == .cs193p2021)
        #expect(blank.document.background == .none)
        #expect(blank.document.emojis.isEmpty)
        #expect(blank.document.title == "blank")
        let empty = try EmojiArtFile.read(try fixture("2023-empty.emojiart"))
        #expect(empty.format == .cs193p2023)
        #expect(empty.document.nextEmojiID == 1)
    }

    @Test func nativeIsThe2023FormatPlusOurKeys() throws {
        var document = try makeDocument(emojiCount: 2, title: "Fête 🎉 / \"quoted\"")
        try document.apply(.setBackground(.image(data: pngBytes, mimeType: "image/png")))
        let bytes = EmojiArtFile.write(document, as: .native).bytes
        let json = try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
        #expect(json["format"] as? String == "emojiart")
        #expect(json["formatVersion"] as? Int == 1)
        #expect(json["title"] as? String == "Fête 🎉 / \"quoted\"")
        #expect((json["background"] as? String)?.hasPrefix("data:image/png;base64,") == true)
        #expect(json["uniqueEmojiId"] as? Int == 2)
        let emoji = try #require((json["emojis"] as? [[String: Any]])?.first)
        #expect(Set(emoji.keys) == ["string", "position", "size", "id"])
        // The 2023 reader, ignoring our keys, sees the same emojis.
        var stripped = json
        for key in ["format", "formatVersion", "title"] { stripped[key] = nil }
        let as2023 = try EmojiArtFile.read(
            Array(try JSONSerialization.data(withJSONObject: stripped)), defaultTitle: document.title)
        #expect(as2023.format == .cs193p2023)
        #expect(as2023.document == document)
    }

    @Test("every format round trips", arguments: DocumentFormat.allCases)
    func roundTrip(format: DocumentFormat) throws {
        var document = try makeDocument(emojiCount: 25, title: "Ünïcödé ✨")
        for background in [Background.none, .url(Self.wikimedia), .image(data: pngBytes, mimeType: "image/png")] {
            try document.apply(.setBackground(background))
            let encoded = EmojiArtFile.write(document, as: format)
            let decoded = try EmojiArtFile.read(encoded.bytes, defaultTitle: "Ünïcödé ✨")
            #expect(decoded.format == format)
            #expect(decoded.document == document)
            // Only the native format keeps the title.
            #expect(encoded.notes.contains { $0.contains("no title") } == (format != .native))
        }
    }

    @Test func writingOldFormatsSaysWhatTheyCannotHold() throws {
        var document = try makeDocument(emojiCount: 1, title: "Party")
        try document.apply(.setBackground(.image(data: pngBytes, mimeType: "image/png")))
        let notes2023 = EmojiArtFile.write(document, as: .cs193p2023).notes
        #expect(notes2023.contains { $0.contains("no title") })
        #expect(notes2023.contains { $0.contains("data: URL") })
        let notes2021 = EmojiArtFile.write(document, as: .cs193p2021).notes
        #expect(notes2021 == [#"The CS193P EmojiArt 2021 format has no title; "Party" is not saved."#])
        #expect(EmojiArtFile.write(document, as: .native).notes.isEmpty)
    }

    static let equivalentInputs: [(String, String)] = [
        (
            "escaped slashes",
            #"{"background":"https:\/\/example.com\/a.png","emojis":[{"string":"😀","position":{"x":-3,"y":4},"size":40,"id":7}],"uniqueEmojiId":7}"#
        ),
        (
            "unescaped slashes",
            #"{"background":"https://example.com/a.png","emojis":[{"string":"😀","position":{"x":-3,"y":4},"size":40,"id":7}],"uniqueEmojiId":7}"#
        ),
        (
            "another key order",
            #"{"uniqueEmojiId":7,"emojis":[{"id":7,"size":40,"position":{"y":4,"x":-3},"string":"😀"}],"background":"https://example.com/a.png"}"#
        ),
        (
            "pretty-printed",
            "{\n  \"background\" : \"https://example.com/a.png\",\n  \"emojis\" : [\n    {\n      \"string\" : \"😀\",\n      \"position\" : { \"x\" : -3, \"y\" : 4 },\n      \"size\" : 40,\n      \"id\" : 7\n    }\n  ],\n  \"uniqueEmojiId\" : 7\n}\n"
        ),
        (
            "2.0 for integers",
            #"{"background":"https://example.com/a.png","emojis":[{"string":"😀","position":{"x":-3.0,"y":4.0},"size":4e1,"id":7.0}],"uniqueEmojiId":7.0}"#
        ),
        (
            "escaped emoji",
            #"{"background":"https://example.com/a.png","emojis":[{"string":"\ud83d\ude00","position":{"x":-3,"y":4},"size":40,"id":7}],"uniqueEmojiId":7}"#
        ),
        (
            "unknown keys",
            #"{"extra":{"nested":[1,2,{"a":null}]},"background":"https://example.com/a.png","emojis":[{"string":"😀","position":{"x":-3,"y":4,"z":9},"size":40,"id":7,"rotation":3}],"uniqueEmojiId":7}"#
        ),
        (
            "2021 format",
            #"{"background":{"theURL":"https:\/\/example.com\/a.png"},"emojis":[{"text":"😀","x":-3,"y":-4,"size":40,"id":7}],"uniqueEmojiId":7}"#
        ),
        (
            "native format",
            #"{"format":"emojiart","formatVersion":1,"title":"Untitled","background":"https://example.com/a.png","emojis":[{"string":"😀","position":{"x":-3,"y":4},"size":40,"id":7}],"uniqueEmojiId":7}"#
        ),
        (
            "a byte order mark",
            "\u{FEFF}"
                + #"{"background":"https://example.com/a.png","emojis":[{"string":"😀","position":{"x":-3,"y":4},"size":40,"id":7}],"uniqueEmojiId":7}"#
        ),
    ]

    @Test("equivalent spellings read the same", arguments: equivalentInputs)
    func equivalentSpellings(name: String, json: String) throws {
        let decoded = try EmojiArtFile.read(Array(json.utf8))
        let expected = try EmojiArtDocument(
            background: .url(URL(string: "https://example.com/a.png")!),
            emojis: [Emoji(id: 7, text: "😀", position: Point(x: -3, y: 4), size: 40)], nextEmojiID: 8)
        #expect(decoded.document == expected, "\(name)")
    }

    /// Every spelling read, written in every format, and read again gives the same document.
    @Test(
        "every spelling round trips through every format",
        arguments: equivalentInputs.map(\.1), DocumentFormat.allCases)
    func crossFormatRoundTrip(json: String, target: DocumentFormat) throws {
        let original = try EmojiArtFile.read(Array(json.utf8)).document
        let written = EmojiArtFile.write(original, as: target)
        let reread = try EmojiArtFile.read(written.bytes)
        #expect(reread.format == target)
        #expect(reread.document == original)
        // Writing is deterministic: the same document always gives the same bytes.
        #expect(EmojiArtFile.write(reread.document, as: target).bytes == written.bytes)
    }

    static let titledInputs: [(String, String)] = [
        (
            #"{"format":"emojiart","formatVersion":1,"title":"Fête de l’été 🎉","emojis":[],"uniqueEmojiId":0}"#,
            "Fête de l’été 🎉"
        ),
        (
            #"{"format":"emojiart","formatVersion":1,"title":"F\u00eate \ud83c\udf89","emojis":[],"uniqueEmojiId":0}"#,
            "Fête 🎉"
        ),
        (#"{"format":"emojiart","formatVersion":1,"title":"日本語のタイトル","emojis":[],"uniqueEmojiId":0}"#, "日本語のタイトル"),
        (
            #"{"format":"emojiart","formatVersion":1,"title":"<img src=x onerror=alert(1)> \"quoted\" \\ back","emojis":[],"uniqueEmojiId":0}"#,
            #"<img src=x onerror=alert(1)> "quoted" \ back"#
        ),
    ]

    @Test("non-ASCII and hostile titles round trip", arguments: titledInputs)
    func titles(json: String, title: String) throws {
        let decoded = try EmojiArtFile.read(Array(json.utf8))
        #expect(decoded.document.title == title)
        #expect(try EmojiArtFile.read(EmojiArtFile.write(decoded.document, as: .native).bytes).document.title == title)
    }

    static let noBackgroundInputs: [String] = [
        #"{"emojis":[],"uniqueEmojiId":0}"#,
        #"{"background":null,"emojis":[],"uniqueEmojiId":0}"#,
        #"{"background":{},"emojis":[],"uniqueEmojiId":0}"#,
        #"{"background":{"somethingElse":1},"emojis":[],"uniqueEmojiId":0}"#,
        #"{"format":"emojiart","formatVersion":1,"emojis":[],"uniqueEmojiId":0}"#,
    ]

    @Test("null, missing and blank backgrounds are none", arguments: noBackgroundInputs)
    func noBackground(json: String) throws {
        #expect(try EmojiArtFile.read(Array(json.utf8)).document.background == .none)
    }

    @Test func anUnusableOriginalBackgroundOpensBlankWithANote() throws {
        let decoded = try EmojiArtFile.read(
            Array(#"{"background":{"theURL":"file:///var/mobile/x.png"},"emojis":[],"uniqueEmojiId":0}"#.utf8))
        #expect(decoded.document.background == .none)
        #expect(decoded.notes.count == 1)
    }

    @Test func theLargestIdRoundTrips() throws {
        let largest = DocumentLimits.idRange.upperBound
        let json = #"{"emojis":[{"string":"😀","position":{"x":0,"y":0},"size":40,"id":\#(largest)}],"uniqueEmojiId":0}"#
        var document = try EmojiArtFile.read(Array(json.utf8)).document
        #expect(document.nextEmojiID == largest + 1)
        let reread = try EmojiArtFile.read(EmojiArtFile.write(document, as: .native).bytes).document
        #expect(reread == document)
        let error = #expect(throws: EmojiArtError.self) {
            try document.apply(.addEmoji(text: "🚚", position: .zero, size: 40))
        }
        #expect(error?.code == .outOfRange)
    }

    @Test func imagesThe2021FormatCannotHoldAreNoted() throws {
        var document = try EmojiArtDocument()
        let svg = Data("<svg xmlns='http://www.w3.org/2000/svg'/>".utf8)
        try document.apply(.setBackground(.image(data: svg, mimeType: "image/svg+xml")))
        let encoded = EmojiArtFile.write(document, as: .cs193p2021)
        #expect(
            encoded.notes == [
                "The CS193P 2021 format only holds PNG, JPEG, GIF or WebP image data; the image/svg+xml background is not saved."
            ])
        #expect(try EmojiArtFile.read(encoded.bytes).document.background == .none)
        #expect(EmojiArtFile.write(document, as: .native).notes.isEmpty)
    }

    @Test func percentEncodedBinaryDataURLsDecodeToBytes() throws {
        let background = try Background(parsing: "data:image/png,%89PNG%0D%0A%1A%0A%00%FF")
        #expect(
            background
                == .image(
                    data: Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0xFF]), mimeType: "image/png"))
        #expect(throws: EmojiArtError.self) { try Background(parsing: "data:image/png,%8") }
    }

    @Test func aNewerNativeVersionIsRefused() throws {
        let json = #"{"format":"emojiart","formatVersion":2,"title":"From the future","emojis":[],"uniqueEmojiId":0}"#
        let error = #expect(throws: EmojiArtError.self) { try EmojiArtFile.read(Array(json.utf8)) }
        #expect(error?.code == .unsupportedVersion)
        #expect(error?.path == "formatVersion")
        #expect(error?.message.contains("Update emojiart") == true)
    }

    static let malformedInputs: [(String, [UInt8], EmojiArtError.Code, String?)] = [
        ("truncated", Array(#"{"emojis":[{"string":"😀","posi"#.utf8), .malformedJSON, nil),
        ("empty", [], .malformedJSON, nil),
        ("not an object", Array("[1,2]".utf8), .invalidFile, nil),
        (
            "wrong type for text",
            Array(#"{"emojis":[{"string":5,"position":{"x":0,"y":0},"size":40,"id":1}],"uniqueEmojiId":1}"#.utf8),
            .invalidFile, "emojis[0].string"
        ),
        ("wrong type for emojis", Array(#"{"emojis":"😀","uniqueEmojiId":1}"#.utf8), .invalidFile, "emojis"),
        (
            "missing position", Array(#"{"emojis":[{"string":"😀","size":40,"id":1}],"uniqueEmojiId":1}"#.utf8),
            .invalidFile, "emojis[0].position"
        ),
        ("missing uniqueEmojiId", Array(#"{"emojis":[]}"#.utf8), .invalidFile, "uniqueEmojiId"),
        (
            "fractional number",
            Array(#"{"emojis":[{"string":"😀","position":{"x":2.5,"y":0},"size":40,"id":1}],"uniqueEmojiId":1}"#.utf8),
            .invalidFile, "emojis[0].position.x"
        ),
        (
            "huge exponent",
            Array(#"{"emojis":[{"string":"😀","position":{"x":1e400,"y":0},"size":40,"id":1}],"uniqueEmojiId":1}"#.utf8),
            .invalidFile, "emojis[0].position.x"
        ),
        (
            "a number too close to zero",
            Array(
                #"{"emojis":[{"string":"😀","position":{"x":1e-400,"y":0},"size":40,"id":1}],"uniqueEmojiId":1}"#.utf8),
            .malformedJSON, nil
        ),
        (
            "huge integer",
            Array(
                #"{"emojis":[{"string":"😀","position":{"x":0,"y":0},"size":40,"id":99999999999999999999}],"uniqueEmojiId":1}"#
                    .utf8), .outOfRange, "emojis[0].id"
        ),
        (
            "position out of range",
            Array(
                #"{"emojis":[{"string":"😀","position":{"x":0,"y":1000001},"size":40,"id":1}],"uniqueEmojiId":1}"#.utf8),
            .outOfRange, "emojis[0].position"
        ),
        (
            "2021 position out of range",
            Array(
                #"{"background":{},"emojis":[{"text":"😀","x":-5000000,"y":0,"size":40,"id":1}],"uniqueEmojiId":1}"#.utf8
            ), .outOfRange, "emojis[0]"
        ),
        (
            "2021 y that cannot be negated",
            Array(
                #"{"background":{},"emojis":[{"text":"😀","x":0,"y":-9223372036854775808,"size":40,"id":1}],"uniqueEmojiId":1}"#
                    .utf8),
            .outOfRange, "emojis[0]"
        ),
        (
            "size zero",
            Array(#"{"emojis":[{"string":"😀","position":{"x":0,"y":0},"size":0,"id":1}],"uniqueEmojiId":1}"#.utf8),
            .outOfRange, "emojis[0].size"
        ),
        (
            "not an emoji",
            Array(#"{"emojis":[{"string":"ab","position":{"x":0,"y":0},"size":4,"id":1}],"uniqueEmojiId":1}"#.utf8),
            .invalidEmoji, "emojis[0].string"
        ),
        (
            "2021 not an emoji",
            Array(#"{"background":{},"emojis":[{"text":"x","x":0,"y":0,"size":4,"id":1}],"uniqueEmojiId":1}"#.utf8),
            .invalidEmoji, "emojis[0].text"
        ),
        (
            "duplicate ids",
            Array(
                #"{"emojis":[{"string":"😀","position":{"x":0,"y":0},"size":4,"id":1},{"string":"😀","position":{"x":0,"y":0},"size":4,"id":1}],"uniqueEmojiId":1}"#
                    .utf8), .invalidFile, "emojis[1].id"
        ),
        ("negative counter", Array(#"{"emojis":[],"uniqueEmojiId":-5}"#.utf8), .outOfRange, "uniqueEmojiId"),
        (
            "invalid base64", Array(#"{"background":{"imageData":"not*base64!"},"emojis":[],"uniqueEmojiId":0}"#.utf8),
            .invalidFile, "background.imageData"
        ),
        (
            "invalid data URL",
            Array(#"{"background":"data:image/png;base64,@@@","emojis":[],"uniqueEmojiId":0}"#.utf8),
            .invalidBackground, "background"
        ),
        (
            "data URL that is not an image",
            Array(#"{"background":"data:text/html,<script>","emojis":[],"uniqueEmojiId":0}"#.utf8), .invalidBackground,
            "background"
        ),
        (
            "background of the wrong type", Array(#"{"background":42,"emojis":[],"uniqueEmojiId":0}"#.utf8),
            .invalidFile, "background"
        ),
        (
            "native with a bad URL",
            Array(
                #"{"format":"emojiart","formatVersion":1,"background":"ftp://x","emojis":[],"uniqueEmojiId":0}"#.utf8),
            .invalidBackground, "background"
        ),
        (
            "native title with a line break",
            Array(#"{"format":"emojiart","formatVersion":1,"title":"a\nb","emojis":[],"uniqueEmojiId":0}"#.utf8),
            .invalidText, "title"
        ),
        (
            "another program's marker", Array(#"{"format":"sketch","emojis":[],"uniqueEmojiId":0}"#.utf8), .invalidFile,
            "format"
        ),
        ("invalid UTF-8", [0x7B, 0x22, 0xFF, 0xFE, 0x22, 0x3A, 0x31, 0x7D], .malformedJSON, nil),
        (
            "lone surrogate",
            Array(#"{"emojis":[{"string":"\ud83d","position":{"x":0,"y":0},"size":4,"id":1}],"uniqueEmojiId":1}"#.utf8),
            .malformedJSON, nil
        ),
        (
            "control character in a string", Array("{\"emojis\":[],\"uniqueEmojiId\":0,\"x\":\"a\u{01}b\"}".utf8),
            .malformedJSON, nil
        ),
        ("trailing garbage", Array(#"{"emojis":[],"uniqueEmojiId":0} trailing"#.utf8), .malformedJSON, nil),
        ("trailing comma", Array(#"{"emojis":[],"uniqueEmojiId":0,}"#.utf8), .malformedJSON, nil),
        ("leading zero", Array(#"{"emojis":[],"uniqueEmojiId":01}"#.utf8), .malformedJSON, nil),
        (
            "deep nesting",
            Array((String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)).utf8),
            .malformedJSON, nil
        ),
        (
            "deep nesting in a field", Array((#"{"emojis":"# + String(repeating: "[", count: 5_000)).utf8),
            .malformedJSON, nil
        ),
    ]

    @Test("malformed input gives an error naming the field", arguments: malformedInputs)
    func malformed(name: String, bytes: [UInt8], code: EmojiArtError.Code, path: String?) throws {
        let error = #expect(throws: EmojiArtError.self, "\(name)") { try EmojiArtFile.read(bytes) }
        #expect(error?.code == code, "\(name): \(String(describing: error))")
        #expect(error?.path == path, "\(name): \(String(describing: error))")
        #expect(error?.message.isEmpty == false)
    }

    @Test func tenMegabytesOfGarbageIsRefusedQuickly() throws {
        var random = SplitMix64(seed: 7)
        let garbage = (0..<10_000_000).map { _ in UInt8.random(in: 0...255, using: &random) }
        let error = #expect(throws: EmojiArtError.self) { try EmojiArtFile.read(garbage) }
        #expect(error?.code == .malformedJSON)
        let almostJSON = Array((#"{"emojis":["# + String(repeating: #"{"string":"😀"},"#, count: 400_000)).utf8)
        #expect(throws: EmojiArtError.self) { try EmojiArtFile.read(almostJSON) }
    }

    @Test func parseErrorsSayWhere() throws {
        let error = #expect(throws: EmojiArtError.self) { try EmojiArtFile.read(Array("{\n  \"emojis\": [,]\n}".utf8)) }
        #expect(error?.message == "the file is not valid JSON: unexpected character at line 2, column 14.")
    }

    @Test func filesOverTheLimitAreRefusedBeforeParsing() throws {
        let error = #expect(throws: EmojiArtError.self) {
            try EmojiArtFile.read([UInt8](repeating: 0x20, count: DocumentLimits.maximumFileBytes + 1))
        }
        #expect(error?.code == .tooLarge)
    }
}
