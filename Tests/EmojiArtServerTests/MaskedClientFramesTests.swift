import Testing

@testable import EmojiArtServer

/// The reader that checks every client frame is masked, fed bytes the way TCP might split them.
@Suite("Client frames must be masked (RFC 6455 §5.1)")
struct MaskedClientFramesTests {
    /// A frame as a client sends it: FIN + text, the mask bit, the length in its shortest form,
    /// a masking key, the payload.
    func frame(length: Int, masked: Bool = true) -> [UInt8] {
        let maskBit: UInt8 = masked ? 0x80 : 0
        var bytes: [UInt8] = [0x81]
        switch length {
        case ..<126: bytes.append(maskBit | UInt8(length))
        case ..<65536: bytes += [maskBit | 126, UInt8(length >> 8), UInt8(length & 0xFF)]
        default: bytes += [maskBit | 127] + (0..<8).reversed().map { UInt8((length >> ($0 * 8)) & 0xFF) }
        }
        if masked { bytes += [1, 2, 3, 4] }
        return bytes + [UInt8](repeating: 0x80, count: length)  // payload bytes that look like headers
    }

    func feed(_ bytes: [UInt8], in chunk: Int) -> Bool {
        var reader = MaskedClientFrames.Reader()
        var start = 0
        while start < bytes.count {
            guard reader.read(bytes[start..<min(start + chunk, bytes.count)]) else { return false }
            start += chunk
        }
        return true
    }

    @Test(arguments: [1, 2, 3, 7, 1000, 100_000])
    func maskedFramesOfEveryLengthFormPassHoweverTheyAreSplit(chunk: Int) {
        let stream =
            frame(length: 0) + frame(length: 5) + frame(length: 125) + frame(length: 126)
            + frame(length: 300) + frame(length: 70_000) + frame(length: 3)
        #expect(feed(stream, in: chunk))
    }

    @Test(arguments: [1, 2, 5, 1000])
    func anUnmaskedFrameIsCaughtWhereverItComes(chunk: Int) {
        #expect(!feed(frame(length: 5, masked: false), in: chunk))
        #expect(!feed(frame(length: 300) + frame(length: 70_000) + frame(length: 10, masked: false), in: chunk))
    }
}
