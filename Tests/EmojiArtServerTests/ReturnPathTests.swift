import Foundation
import Testing

@testable import EmojiArtServer

@Suite("Sign-in's next goes to a page of this site only")
struct ReturnPathTests {
    struct Case: Decodable, CustomTestStringConvertible, Sendable {
        var next: String
        var path: String
        var testDescription: String { next.debugDescription }
    }

    struct Table: Decodable {
        var cases: [Case]
    }

    /// The table the page's `returnPath` is checked against too (Tests/Browser/test_accounts.py).
    static let table: [Case] = {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/security/return-paths.json")
        guard let data = try? Data(contentsOf: url), let table = try? JSONDecoder().decode(Table.self, from: data)
        else { return [] }
        return table.cases
    }()

    @Test func theTableIsThere() {
        #expect(Self.table.count > 40)
    }

    /// Issue #33: `/.//other.example/x` and its kin sent the browser to another site.
    @Test(arguments: table)
    func nextIsAPathOfThisSite(_ example: Case) {
        let path = ReturnPath(example.next, ownNames: SiteGuard().ownNames).path
        #expect(path == example.path)
        #expect(path.hasPrefix("/") && !path.hasPrefix("//") && !path.hasPrefix("/\\"))
        // Whatever it is, a browser resolving it stays here.
        #expect(URL(string: path, relativeTo: URL(string: "http://127.0.0.1:8080/signin"))?.host == "127.0.0.1")
    }

    @Test func aPublicURLsOwnAddressesCount() {
        let names = SiteGuard(publicURL: URL(string: "https://art.example.com")).ownNames
        #expect(ReturnPath("https://art.example.com/play", ownNames: names).path == "/play")
        #expect(ReturnPath("https://art.example.com.evil/play", ownNames: names).path == "/")
    }

    @Test func absentOrHugeIsHome() {
        #expect(ReturnPath(nil, ownNames: []).path == "/")
        #expect(ReturnPath("/" + String(repeating: "a", count: 5000), ownNames: []).path == "/")
    }
}
