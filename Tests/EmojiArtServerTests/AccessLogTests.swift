import Hummingbird
import Testing

@testable import EmojiArtServer

/// The access log's own formatting, written on every request without Foundation's formatter.
struct AccessLogTests {
    @Test(arguments: [
        (0, "0.000"), (7, "0.007"), (70, "0.070"), (999, "0.999"), (1_000, "1.000"), (1_234, "1.234"),
        (61_005, "61.005"), (12_345_678, "12345.678"),
    ])
    func aDurationIsWrittenInMillisecondsWithThreeDecimals(microseconds: Int, written: String) {
        #expect(AccessLogMiddleware<BasicRequestContext>.milliseconds(microseconds) == written)
    }
}
