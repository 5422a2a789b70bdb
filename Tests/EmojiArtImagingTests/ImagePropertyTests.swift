import EmojiArtImaging
import EmojiArtKit
import Foundation
import PropertyBased
import Testing

/// Property-based tests of the image decoders (issue #20): random bytes and real PNG, JPEG, GIF
/// and WebP files mangled give a typed ``EmojiArtError`` or a decoded image, never a crash.
@Suite("Image decoders never crash on random or mangled input")
struct ImagePropertyTests {
    static let images: [[UInt8]] = [
        "red-7x5.png", "noise-64x48.png", "red-7x5.jpg", "red-7x5-progressive.jpg", "red-7x5.gif", "anim-4x6.gif",
        "red-7x5-lossy.webp", "red-7x5-lossless.webp", "anim-8x8.webp",
    ].compactMap { name in
        try? Array(
            Data(
                contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                    .appendingPathComponent("Fixtures/images/\(name)")))
    }

    static func check(_ bytes: [UInt8]) {
        do {
            let info = try ImageDecoder.decode(Data(bytes))
            #expect(info.width > 0 && info.height > 0)
            let bitmap = try ImageDecoder.bitmap(Data(bytes))
            #expect(bitmap.width == info.width && bitmap.height == info.height)
        } catch is EmojiArtError {
        } catch {
            Issue.record("decoding gave an untyped error: \(error)")
        }
    }

    @Test func randomBytesNeverCrashTheDecoders() async {
        // Each with a real signature in front, so every decoder is reached.
        let signatures: [[UInt8]] = [
            [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], [0xFF, 0xD8, 0xFF], Array("GIF89a".utf8),
            Array("RIFF".utf8) + [0x40, 0, 0, 0] + Array("WEBPVP8 ".utf8), [],
        ]
        await propertyCheck(count: 300, input: Gen.int(in: 0...(signatures.count - 1)), Gen.uint8().array(of: 0...300))
        {
            which, bytes in
            Self.check(signatures[which] + bytes)
        }
    }

    @Test func mangledImagesAreDecodedOrRefusedWithATypedError() async {
        let files = Self.images
        #expect(files.count == 9)
        await propertyCheck(
            count: 400, input: Gen.int(in: 0...(files.count - 1)), Gen.int(in: 0...1_000_000).array(of: 1...4),
            Gen.uint8().array(of: 1...4)
        ) { which, steps, bytes in
            var file = files[which]
            for (index, step) in steps.enumerated() where !file.isEmpty {
                let at = step % file.count
                switch (step / file.count) % 3 {
                case 0: file[at] = bytes[index % bytes.count]
                case 1: file.removeSubrange(at...)
                default: file.insert(bytes[index % bytes.count], at: at)
                }
            }
            Self.check(file)
        }
    }
}
