import EmojiArtKit
import Foundation
import HTTPTypes
import Hummingbird

/// The emoji catalogue (``EmojiCatalogue``): `GET /api/emoji?q=…&lang=…&limit=…` searches it as
/// the picker does, and `/emoji/` serves its files to the page. Both are public: the catalogue is
/// Unicode's data, the same for everyone, like the page's scripts.
struct EmojiController {
    let catalogue: EmojiCatalogue

    /// Results a search answers by default, and at most.
    static let defaultLimit = 50
    static let maximumLimit = 200
    /// Longest `lang` read (BCP 47 tags in use are far shorter).
    static let maximumLanguageTagLength = 35

    struct SearchBody: ResponseEncodable {
        struct Result: Encodable {
            var emoji: String
            var name: String
            var keywords: [String]
            var group: String
        }

        /// The language the names are in (English when the one asked for isn't in the catalogue).
        var language: String
        var results: [Result]
    }

    func addRoutes(to router: Router<AppRequestContext>) {
        router.get("/api/emoji", use: search)
        router.get("/emoji/:file", use: file)
    }

    /// `GET /api/emoji?q=fox&lang=de&limit=20`: the best matches first (docs/EDITOR.md, "How the
    /// picker ranks"). Without `lang`, the request's `Accept-Language` chooses.
    @Sendable func search(_ request: Request, context: AppRequestContext) async throws -> SearchBody {
        let parameters = request.uri.queryParameters
        guard let query = Self.formParameter("q", in: request.uri.query) else {
            throw APIError.badRequest("Say what to look for: ?q=fox.")
        }
        do {
            try EmojiSearch.validate(query)
        } catch let error as EmojiArtError {
            throw APIError.badRequest(error.message.sentenceCased)
        }
        var limit = Self.defaultLimit
        if let text = parameters.get("limit") {
            guard let value = Int(text), (1...Self.maximumLimit).contains(value) else {
                throw APIError.badRequest("limit is a whole number from 1 to \(Self.maximumLimit).")
            }
            limit = value
        }
        let lang = Self.formParameter("lang", in: request.uri.query)
        if let lang, lang.unicodeScalars.count > Self.maximumLanguageTagLength {
            throw APIError.badRequest(
                "lang is a language tag such as de or zh-Hant, at most \(Self.maximumLanguageTagLength) characters.")
        }
        let preferred =
            lang.map { [$0] }
            ?? Self.languages(request.headers[.acceptLanguage] ?? "")
        let language = catalogue.language(for: preferred)
        let search = try catalogue.search(in: language)
        return SearchBody(
            language: search.language,
            results: search.search(query, limit: limit).map {
                SearchBody.Result(emoji: $0.emoji, name: $0.name, keywords: $0.keywords, group: $0.group)
            })
    }

    /// A query parameter as forms and `URLSearchParams` write it, `+` for a space (`q=palm+tree`);
    /// nil when absent, or when its percent-escapes are broken.
    static func formParameter(_ name: String, in query: String?) -> String? {
        for pair in (query ?? "").split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts[0].replacingOccurrences(of: "+", with: " ").removingPercentEncoding == name else { continue }
            return parts.count > 1 ? parts[1].replacingOccurrences(of: "+", with: " ").removingPercentEncoding : ""
        }
        return nil
    }

    /// The tags of an `Accept-Language` header, most wanted first ("de-CH, de;q=0.9, en;q=0.5").
    static func languages(_ header: String) -> [String] {
        header.split(separator: ",").prefix(20).compactMap { part -> (String, Double)? in
            let pieces = part.split(separator: ";")
            guard let tag = pieces.first?.trimmingCharacters(in: .whitespaces), !tag.isEmpty, tag != "*" else {
                return nil
            }
            let quality =
                pieces.dropFirst().first { $0.trimmingCharacters(in: .whitespaces).hasPrefix("q=") }
                .flatMap { Double($0.trimmingCharacters(in: .whitespaces).dropFirst(2)) } ?? 1
            return (tag, quality)
        }
        .enumerated().sorted { ($0.element.1, -$0.offset) > ($1.element.1, -$1.offset) }.map(\.element.0)
    }

    /// `GET /emoji/index.json` (always revalidated) and `GET /emoji/<file>?v=<hash>`: with the
    /// hash index.json gives it, cached for a year; with any other, revalidated, so a page that
    /// asks with an old hash after an upgrade still gets the file of now.
    @Sendable func file(_ request: Request, context: AppRequestContext) async throws -> Response {
        let name = context.parameters.get("file") ?? ""
        let files = [catalogue.catalogueFile] + Array(catalogue.languageFiles.values)
        let current = files.first { $0.name == name }
        guard name == "index.json" || current != nil else {
            throw APIError.notFound("The emoji catalogue has no file \(name.prefix(60)).")
        }
        var headers = HTTPFields()
        headers[.contentType] = "application/json; charset=utf-8"
        if let current, !current.hash.isEmpty, request.uri.queryParameters.get("v") == current.hash {
            headers[.cacheControl] = "public, max-age=31536000, immutable"
        } else {
            headers[.cacheControl] = "no-cache"
        }
        let path = catalogue.directory.appendingPathComponent(name).path
        return Response(
            status: .ok, headers: headers, body: try await FileIO().loadFile(path: path, context: context))
    }
}
