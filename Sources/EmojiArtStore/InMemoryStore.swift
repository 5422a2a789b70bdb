import EmojiArtKit
import Foundation
import Synchronization

/// A store that keeps every aggregate in memory, as the SQL stores keep them in one database:
/// for tests and `emojiart serve --memory`. ``Stores/inMemory()`` hands out one for each role.
public final class InMemoryStore: DocumentStore, PaletteStore, ImageStore, UserStore, SessionStore, TokenStore,
    ShareStore, LinkStore, RevocationStore
{
    private struct Contents {
        var snapshots: [UUID: StoredDocument] = [:]
        var summaries: [UUID: DocumentSummary] = [:]
        /// Every entry kept, snapshot or not (history), in version order.
        var logs: [UUID: [LogEntry]] = [:]
        var checkpoints: [UUID: [StoredDocument]] = [:]
        var palettes: [UUID: [Palette]] = [:]
        var images: [String: StoredImage] = [:]
        var imageSources: [String: String] = [:]
        var imageUses: [String: Set<ImageUse>] = [:]
        /// Browser hash → link id → when granted.
        var browserLinks: [String: [UUID: Date]] = [:]
        var revocations = 0
        var users: [UUID: StoredUser] = [LocalUser.id: InMemoryStore.localUser]
        var preferences: [UUID: UserPreferences] = [:]
        var sessions: [String: (userID: UUID, createdAt: Date, lastSeenAt: Date)] = [:]
        var tokens: [String: APIToken] = [:]
        var members: [UUID: [UUID: DocumentRole]] = [:]
        var links: [String: ShareLink] = [:]
        var failures: [(subject: String, at: Date)] = []

        /// Removes links, and every browser's grant of them.
        mutating func removeLinks(where condition: (ShareLink) -> Bool) {
            let gone = Set(links.values.filter(condition).map(\.id))
            guard !gone.isEmpty else { return }
            links = links.filter { !gone.contains($0.value.id) }
            for browser in browserLinks.keys {
                browserLinks[browser] = browserLinks[browser]?.filter { !gone.contains($0.key) }
            }
        }

        mutating func deleteDocument(_ id: UUID) -> Bool {
            logs[id] = nil
            checkpoints[id] = nil
            summaries[id] = nil
            members[id] = nil
            removeLinks { $0.documentID == id }
            return snapshots.removeValue(forKey: id) != nil
        }
    }

    private static let localUser = StoredUser(
        user: User(id: LocalUser.id, name: LocalUser.name, createdAt: Date(timeIntervalSince1970: 0)),
        passwordHash: "!", passwordChangedAt: Date(timeIntervalSince1970: 0))

    private let contents = Mutex(Contents())

    public init() {}

    public var kind: String { "memory" }

    // MARK: Documents

    public func listDocuments() async throws -> [DocumentSummary] {
        contents.withLock { Array($0.summaries.values) }.sorted { $0.updatedAt > $1.updatedAt }
    }

    public func createDocument(_ record: StoredDocument, owner: UUID) async throws {
        try contents.withLock {
            guard $0.users[owner] != nil else { throw AccountStoreError.unknownUser }
            $0.snapshots[record.id] = record
            $0.summaries[record.id] = record.summary
            $0.logs[record.id] = []
            $0.checkpoints[record.id] = [record]
            $0.members[record.id] = [owner: .owner]
        }
    }

    public func loadDocument(id: UUID) async throws -> (snapshot: StoredDocument, log: [LogEntry])? {
        contents.withLock { contents in
            contents.snapshots[id].map { snapshot in
                (snapshot, (contents.logs[id] ?? []).filter { $0.version > snapshot.version })
            }
        }
    }

    public func append(_ appends: [LogAppend]) async throws -> [Result<Void, any Error>] {
        contents.withLock { contents in
            appends.map { append in
                Result {
                    guard let current = contents.summaries[append.id] else { throw StoreError.notFound(append.id) }
                    guard let first = append.entries.first else { return }
                    guard first.version == current.version + 1 else {
                        throw StoreError.versionConflict(id: append.id, expected: first.version - 1)
                    }
                    contents.logs[append.id, default: []].append(contentsOf: append.entries)
                    contents.summaries[append.id] = append.summary
                }
            }
        }
    }

    public func saveSnapshot(_ snapshot: StoredDocument) async throws {
        contents.withLock { contents in
            guard let stored = contents.snapshots[snapshot.id], stored.version < snapshot.version else { return }
            contents.snapshots[snapshot.id] = snapshot
        }
    }

    public func logEntries(of id: UUID, in range: ClosedRange<Int>) async throws -> [LogEntry] {
        contents.withLock { ($0.logs[id] ?? []).filter { range.contains($0.version) } }
    }

    public func recentLogEntries(of id: UUID, through version: Int, limit: Int) async throws -> [LogEntry] {
        contents.withLock {
            Array(($0.logs[id] ?? []).filter { $0.version <= version }.reversed().prefix(max(0, limit)))
        }
    }

    public func checkpoint(of id: UUID, atOrBefore version: Int) async throws -> StoredDocument? {
        contents.withLock { ($0.checkpoints[id] ?? []).last { $0.version <= version } }
    }

    public func ping() async throws {}

    public func oldestCheckpointVersion(of id: UUID) async throws -> Int? {
        contents.withLock { $0.checkpoints[id]?.first?.version }
    }

    public func saveCheckpoint(_ checkpoint: StoredDocument) async throws {
        contents.withLock { contents in
            guard var list = contents.checkpoints[checkpoint.id],
                !list.contains(where: { $0.version == checkpoint.version })
            else { return }
            list.append(checkpoint)
            list.sort { $0.version < $1.version }
            contents.checkpoints[checkpoint.id] = list
        }
    }

    public func dropHistory(of id: UUID, through version: Int, keeping: Set<Int>) async throws {
        contents.withLock { contents in
            guard let snapshot = contents.snapshots[id] else { return }
            let last = min(version, snapshot.version)
            func dropped(_ version: Int) -> Bool { version <= last && !keeping.contains(version) }
            contents.logs[id]?.removeAll { dropped($0.version) }
            contents.checkpoints[id]?.removeAll { dropped($0.version) }
        }
    }

    public func deleteDocument(id: UUID) async throws -> Bool {
        contents.withLock { $0.deleteDocument(id) }
    }

    /// How many log entries a document keeps, history included (for tests).
    public func logLength(of id: UUID) -> Int {
        contents.withLock { $0.logs[id]?.count ?? 0 }
    }

    // MARK: Palettes and images

    public func loadPalettes(owner: UUID) async throws -> [Palette]? {
        contents.withLock { $0.palettes[owner] }
    }

    public func savePalettes(_ palettes: [Palette], owner: UUID) async throws {
        try contents.withLock {
            guard $0.users[owner] != nil else { throw AccountStoreError.unknownUser }
            $0.palettes[owner] = palettes.isEmpty ? nil : palettes
        }
    }

    public func saveImage(_ image: StoredImage) async throws {
        contents.withLock { contents in
            if contents.images[image.id] == nil { contents.images[image.id] = image }
        }
    }

    public func loadImage(id: String) async throws -> StoredImage? {
        contents.withLock { $0.images[id] }
    }

    public func saveImageSource(_ url: String, imageID: String) async throws {
        contents.withLock { $0.imageSources[url] = imageID }
    }

    public func imageID(forSource url: String) async throws -> String? {
        contents.withLock { $0.imageSources[url] }
    }

    public func recordImageUse(_ imageID: String, by use: ImageUse) async throws {
        _ = contents.withLock { $0.imageUses[imageID, default: []].insert(use) }
    }

    public func mayRead(imageID: String, _ reader: ImageReader) async throws -> Bool {
        contents.withLock { contents in
            guard contents.images[imageID] != nil, let uses = contents.imageUses[imageID] else { return false }
            return uses.contains { use in
                switch use {
                case .uploader(let user): user == reader.userID
                case .game: reader.userID != nil
                case .document(let document):
                    reader.linkedDocuments.contains(document)
                        || reader.userID.map { contents.members[document]?[$0] != nil } == true
                }
            }
        }
    }

    // MARK: Users

    public func addUser(_ user: User, passwordHash: String) async throws {
        try contents.withLock { contents in
            let key = User.nameKey(user.name)
            guard contents.users[user.id] == nil,
                !contents.users.values.contains(where: {
                    User.nameKey($0.user.name) == key && $0.user.id != LocalUser.id
                })
            else { throw AccountStoreError.nameTaken(user.name) }
            contents.users[user.id] = StoredUser(
                user: user, passwordHash: passwordHash, passwordChangedAt: user.createdAt)
        }
    }

    public func user(named name: String) async throws -> StoredUser? {
        let key = User.nameKey(name)
        return contents.withLock { contents in
            contents.users.values.first { $0.user.id != LocalUser.id && User.nameKey($0.user.name) == key }
        }
    }

    public func user(id: UUID) async throws -> User? {
        contents.withLock { $0.users[id]?.user }
    }

    public func users() async throws -> [User] {
        contents.withLock { $0.users.values.map(\.user).filter { $0.id != LocalUser.id } }
            .sorted { User.nameKey($0.name) < User.nameKey($1.name) }
    }

    public func setPasswordHash(_ hash: String, of id: UUID, at date: Date) async throws {
        try contents.withLock { contents in
            guard id != LocalUser.id, contents.users[id] != nil else { throw AccountStoreError.unknownUser }
            contents.users[id]?.passwordHash = hash
            contents.users[id]?.passwordChangedAt = date
            contents.sessions = contents.sessions.filter { $0.value.userID != id }
            contents.revocations += 1
        }
    }

    public func preferences(of userID: UUID) async throws -> UserPreferences {
        contents.withLock { $0.preferences[userID] } ?? UserPreferences()
    }

    public func setPreferences(_ preferences: UserPreferences, of userID: UUID) async throws {
        try contents.withLock { contents in
            guard contents.users[userID] != nil else { throw AccountStoreError.unknownUser }
            contents.preferences[userID] = preferences
        }
    }

    public func removeUser(id: UUID) async throws -> Bool {
        contents.withLock { contents in
            guard id != LocalUser.id, contents.users.removeValue(forKey: id) != nil else { return false }
            contents.preferences[id] = nil
            for (document, members) in contents.members where members[id] == .owner {
                _ = contents.deleteDocument(document)
            }
            for document in contents.members.keys { contents.members[document]?[id] = nil }
            contents.sessions = contents.sessions.filter { $0.value.userID != id }
            contents.tokens = contents.tokens.filter { $0.value.userID != id }
            contents.palettes[id] = nil
            contents.revocations += 1
            return true
        }
    }

    public func transferData(from: UUID, to: UUID) async throws -> Int {
        try contents.withLock { contents in
            guard from != to, contents.users[from] != nil, contents.users[to] != nil else {
                throw AccountStoreError.unknownUser
            }
            var moved = 0
            for (document, members) in contents.members where members[from] == .owner {
                contents.members[document]?[from] = nil
                contents.members[document]?[to] = .owner
                moved += 1
            }
            if contents.palettes[to] == nil, let palettes = contents.palettes.removeValue(forKey: from) {
                contents.palettes[to] = palettes
            }
            contents.revocations += 1
            return moved
        }
    }

    // MARK: Sessions

    public func createSession(tokenHash: String, userID: UUID, at date: Date) async throws {
        try contents.withLock { contents in
            guard contents.users[userID] != nil, contents.sessions[tokenHash] == nil else {
                throw AccountStoreError.unknownUser
            }
            contents.sessions[tokenHash] = (userID, date, date)
        }
    }

    public func session(tokenHash: String) async throws -> StoredSession? {
        contents.withLock { contents in
            guard let session = contents.sessions[tokenHash], let user = contents.users[session.userID]?.user else {
                return nil
            }
            return StoredSession(user: user, createdAt: session.createdAt, lastSeenAt: session.lastSeenAt)
        }
    }

    public func touchSession(tokenHash: String, at date: Date) async throws {
        contents.withLock { $0.sessions[tokenHash]?.lastSeenAt = date }
    }

    public func deleteSession(tokenHash: String) async throws {
        contents.withLock { contents in
            contents.sessions[tokenHash] = nil
            contents.revocations += 1
        }
    }

    public func deleteSessions(idleSince date: Date) async throws -> Int {
        contents.withLock { contents in
            let before = contents.sessions.count
            contents.sessions = contents.sessions.filter { $0.value.lastSeenAt >= date }
            return before - contents.sessions.count
        }
    }

    public func recordSignInFailure(subjects: [String], at date: Date) async throws {
        contents.withLock { $0.failures += subjects.map { ($0, date) } }
    }

    public func signInFailures(subject: String, since date: Date) async throws -> [Date] {
        contents.withLock { $0.failures.filter { $0.subject == subject && $0.at >= date }.map(\.at).sorted() }
    }

    public func lastSignInFailure(subject: String) async throws -> Date? {
        contents.withLock { $0.failures.filter { $0.subject == subject }.map(\.at).max() }
    }

    public func forgetSignInFailures(before date: Date) async throws {
        contents.withLock { $0.failures.removeAll { $0.at < date } }
    }

    // MARK: Tokens

    public func createToken(_ token: APIToken, hash: String) async throws {
        try contents.withLock { contents in
            guard contents.users[token.userID] != nil, contents.tokens[hash] == nil else {
                throw AccountStoreError.unknownUser
            }
            contents.tokens[hash] = token
        }
    }

    public func token(hash: String) async throws -> (token: APIToken, user: User)? {
        contents.withLock { contents in
            guard let token = contents.tokens[hash], let user = contents.users[token.userID]?.user else { return nil }
            return (token, user)
        }
    }

    public func tokens(of userID: UUID) async throws -> [APIToken] {
        contents.withLock { $0.tokens.values.filter { $0.userID == userID } }
            .sorted { ($0.createdAt, $0.id.uuidString) < ($1.createdAt, $1.id.uuidString) }
    }

    public func touchToken(id: UUID, at date: Date) async throws {
        contents.withLock { contents in
            guard let hash = contents.tokens.first(where: { $0.value.id == id })?.key else { return }
            contents.tokens[hash]?.lastUsedAt = date
        }
    }

    public func revokeToken(id: UUID) async throws -> Bool {
        contents.withLock { contents in
            guard let hash = contents.tokens.first(where: { $0.value.id == id })?.key else { return false }
            contents.tokens[hash] = nil
            contents.revocations += 1
            return true
        }
    }

    // MARK: Members

    public func role(of userID: UUID, on documentID: UUID) async throws -> DocumentRole? {
        contents.withLock { $0.members[documentID]?[userID] }
    }

    public func members(of documentID: UUID) async throws -> [DocumentMember] {
        contents.withLock { contents in
            (contents.members[documentID] ?? [:]).compactMap { userID, role in
                contents.users[userID].map { DocumentMember(user: $0.user, role: role) }
            }
        }.sorted {
            ($0.role == .owner ? 0 : 1, User.nameKey($0.user.name)) < (
                $1.role == .owner ? 0 : 1, User.nameKey($1.user.name)
            )
        }
    }

    public func setRole(_ role: DocumentRole?, of userID: UUID, on documentID: UUID) async throws {
        guard role != .owner else { throw AccountStoreError.ownershipIsNotShared }
        try contents.withLock { contents in
            guard contents.snapshots[documentID] != nil else { throw AccountStoreError.unknownDocument }
            guard contents.users[userID] != nil else { throw AccountStoreError.unknownUser }
            contents.revocations += 1
            guard contents.members[documentID]?[userID] != .owner else { return }
            contents.members[documentID, default: [:]][userID] = role
        }
    }

    public func documents(of userID: UUID) async throws -> [UUID: DocumentRole] {
        contents.withLock { contents in
            contents.members.compactMapValues { $0[userID] }
        }
    }

    // MARK: Links

    public func createLink(_ link: ShareLink) async throws {
        try contents.withLock { contents in
            guard contents.snapshots[link.documentID] != nil, contents.links[link.token] == nil else {
                throw AccountStoreError.unknownDocument
            }
            contents.links[link.token] = link
        }
    }

    public func links(of documentID: UUID) async throws -> [ShareLink] {
        contents.withLock { $0.links.values.filter { $0.documentID == documentID } }
            .sorted { ($0.createdAt, $0.id.uuidString) < ($1.createdAt, $1.id.uuidString) }
    }

    public func link(token: String) async throws -> ShareLink? {
        contents.withLock { $0.links[token] }
    }

    public func links(tokens: [String]) async throws -> [ShareLink] {
        contents.withLock { contents in tokens.compactMap { contents.links[$0] } }
    }

    public func revokeLink(id: UUID, of documentID: UUID) async throws -> Bool {
        contents.withLock { contents in
            guard
                let token = contents.links.first(where: { $0.value.id == id && $0.value.documentID == documentID })?.key
            else { return false }
            contents.removeLinks { $0.token == token }
            contents.revocations += 1
            return true
        }
    }

    public func grantLink(_ linkID: UUID, toBrowser browserHash: String, at date: Date, keeping limit: Int)
        async throws
    {
        try contents.withLock { contents in
            guard contents.links.values.contains(where: { $0.id == linkID }) else {
                throw AccountStoreError.unknownDocument
            }
            var granted = contents.browserLinks[browserHash, default: [:]]
            granted[linkID] = date
            if granted.count > max(1, limit) {
                let kept = granted.sorted { ($0.value, $0.key.uuidString) > ($1.value, $1.key.uuidString) }
                    .prefix(max(1, limit))
                granted = Dictionary(uniqueKeysWithValues: kept.map { ($0.key, $0.value) })
            }
            contents.browserLinks[browserHash] = granted
        }
    }

    public func links(browser browserHash: String) async throws -> [ShareLink] {
        contents.withLock { contents in
            let granted = contents.browserLinks[browserHash] ?? [:]
            return contents.links.values.filter { granted[$0.id] != nil }
                .sorted { (granted[$0.id]!, $0.id.uuidString) < (granted[$1.id]!, $1.id.uuidString) }
        }
    }

    // MARK: Revocations

    public func revocations() async throws -> Int {
        contents.withLock { $0.revocations }
    }
}
