import BraidContracts
import BraidCore
import BraidSources
import Foundation
import Logging
import NIOCore
import NIOPosix
import SQLiteNIO
import Synchronization

/// Another program writing to the corpus behind the gateway's back, through plain SQLite:
/// inserts of new top-ranked recipes, deletions, edits that move recipes up, down or out of a
/// query's matches, each transaction ending with a rebuild of both full-text indexes. After each
/// commit it reads what every query matches, so that a checker knows which documents matched
/// when (``Version``).
final class CorpusChurn: Sendable {
    /// One state of the corpus: what each query matched, and when the transaction ran.
    struct Version: Sendable {
        var started: ContinuousClock.Instant
        var committed: ContinuousClock.Instant
        var matches: [String: Set<String>]
        /// Documents this transaction deleted or edited.
        var touched: Set<String>
    }

    let path: String
    let queries: [String]
    private let versions = Mutex<[Version]>([])
    private let reader: SQLiteSearchSource

    init(path: String, queries: [String]) {
        self.path = path
        self.queries = queries
        self.reader = SQLiteSearchSource(path: path)
    }

    var log: [Version] { versions.withLock { $0 } }

    /// Reads the first version (the corpus as seeded).
    func start() async throws {
        let now = ContinuousClock.now
        let matches = try await self.matches()
        versions.withLock { $0 = [Version(started: now, committed: now, matches: matches, touched: [])] }
    }

    func shutdown() async {
        try? await reader.shutdown()
    }

    private func matches() async throws -> [String: Set<String>] {
        var matches: [String: Set<String>] = [:]
        for query in queries {
            let result = try await reader.search(SearchRequest(query: query, from: 0, size: SearchRequest.maxSize, needsTotal: false))
            precondition(result.hits.count < SearchRequest.maxSize, "keep test queries under \(SearchRequest.maxSize) matches")
            matches[query] = Set(result.hits.map(\.id))
        }
        return matches
    }

    /// Writes until `isDone` says so, a transaction every few milliseconds; returns how many.
    func run(seed: UInt64, isDone: @Sendable () -> Bool) async throws -> Int {
        // Threads of its own, as another program has: readers waiting for its lock hold the
        // shared pool's threads, which its commit would otherwise wait for.
        let threads = NIOThreadPool(numberOfThreads: 1)
        threads.start()
        defer { threads.shutdownGracefully { _ in } }
        let connection = try await SQLiteConnection.open(
            storage: .file(path: path), threadPool: threads, logger: Logger(label: "churn"), on: MultiThreadedEventLoopGroup.singleton.any())
        _ = try await connection.query("PRAGMA busy_timeout = 10000", [])
        var generator = SplitMixForTests(seed: seed)
        var step = 0
        do {
            while !isDone() {
                step += 1
                try await write(step: step, connection: connection, random: &generator)
                try await Task.sleep(for: .milliseconds(Int.random(in: 2...25, using: &generator)))
            }
        } catch {
            // The future's close, not the async one: that gives up in a cancelled task (a walk
            // that failed cancels this one) and leaves the handle open, and the connection's
            // deinit then traps, taking every other test of the run with it.
            try? await (connection.close() as EventLoopFuture<Void>).get()
            throw error
        }
        try await (connection.close() as EventLoopFuture<Void>).get()
        return step
    }

    private func write(step: Int, connection: SQLiteConnection, random: inout SplitMixForTests) async throws {
        let current = log.last?.matches ?? [:]
        let started = ContinuousClock.now
        var touched: Set<String> = []
        _ = try await connection.query("BEGIN IMMEDIATE", [])
        do {
            // New recipes that rank at the top of a query: its words twice in the title.
            for number in 0..<Int.random(in: 0...3, using: &random) {
                let query = queries.randomElement(using: &random)!
                let title = query.split(separator: " ").map { "\($0) \($0)" }.joined(separator: " ") + " Deluxe"
                _ = try await connection.query(
                    "INSERT INTO recipes (id, title, ingredients, category) VALUES (?, ?, ?, ?)",
                    [.text("n\(step)x\(number)"), .text(title), .text("salt, \(query)"), .text("main")])
            }
            // Deletions and edits of documents some query matches.
            let candidates = current.values.flatMap { $0 }.sorted()
            for _ in 0..<Int.random(in: 0...2, using: &random) where !candidates.isEmpty {
                let id = candidates.randomElement(using: &random)!
                touched.insert(id)
                _ = try await connection.query("DELETE FROM recipes WHERE id = ?", [.text(id)])
            }
            for _ in 0..<Int.random(in: 0...3, using: &random) where !candidates.isEmpty {
                let id = candidates.randomElement(using: &random)!
                let query = queries.randomElement(using: &random)!
                touched.insert(id)
                switch Int.random(in: 0..<3, using: &random) {
                case 0:
                    // Up: the query's words twice more in the title.
                    _ = try await connection.query("UPDATE recipes SET title = title || ' ' || ? WHERE id = ?", [.text("\(query) \(query)"), .text(id)])
                case 1:
                    // Down: a long title with the words once, in the ingredients.
                    _ = try await connection.query(
                        "UPDATE recipes SET title = 'Plain dish with many other words in a long title', ingredients = ingredients || ', ' || ? WHERE id = ?",
                        [.text(query), .text(id)])
                default:
                    // Out of most queries: nothing but plain words.
                    _ = try await connection.query(
                        "UPDATE recipes SET title = 'Plain bread', ingredients = 'flour, water', category = 'side' WHERE id = ?", [.text(id)])
                }
            }
            _ = try await connection.query("INSERT INTO recipes_fts(recipes_fts) VALUES ('rebuild')", [])
            _ = try await connection.query("INSERT INTO recipes_trigram(recipes_trigram) VALUES ('rebuild')", [])
            _ = try await connection.query("COMMIT", [])
        } catch {
            _ = try? await connection.query("ROLLBACK", [])
            throw error
        }
        let committed = ContinuousClock.now
        let matches = try await self.matches()
        versions.withLock { $0.append(Version(started: started, committed: committed, matches: matches, touched: touched)) }
    }

    /// Versions that may have been what a read saw at some moment of `interval`: from the last
    /// one committed before it began to the last one begun before it ended.
    func versions(during interval: ClosedRange<ContinuousClock.Instant>) -> [Version] {
        let all = log
        return all.indices.filter { index in
            all[index].started <= interval.upperBound && (index == all.count - 1 || all[index + 1].committed >= interval.lowerBound)
        }.map { all[$0] }
    }
}

/// SplitMix64 for the tests' own random choices (reproducible by seed).
struct SplitMixForTests: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// One walk as a client saw it, and what the guarantee says about it.
struct WalkTrace: Sendable {
    struct Item: Sendable, Hashable {
        var id: String
        var position: Int
        var team: String
    }

    struct Page: Sendable {
        var started: ContinuousClock.Instant
        var ended: ContinuousClock.Instant
        var items: [Item]
        var nextCursor: String?
        var walk: String
        /// The cursor this page was asked with (nil: page 1).
        var cursor: String?
        var arm: String
    }

    var name: String
    var query: String
    var perPage: Int
    /// The experiment arm the walk's session fell in (`interleaving.arm`).
    var arm = "?"
    var pages: [Page] = []
    /// Pages asked for again with the same cursor: which page, and what came back.
    var repeats: [(page: Int, again: Page)] = []

    /// Every way the walk breaks the guarantee, in words; empty when it keeps it. `codec` reads
    /// next cursors (compared without their expiry); `requireExact`: every page must say
    /// `walk: exact`.
    func violations(_ churn: CorpusChurn, codec: CursorCodec, requireExact: Bool) -> [String] {
        var found: [String] = []
        let items = pages.flatMap(\.items)
        let ids = items.map(\.id)
        let twice = Dictionary(grouping: ids, by: { $0 }).filter { $0.value.count > 1 }.keys.sorted()
        if !twice.isEmpty {
            // Where: page, position and team of each showing.
            let places = twice.prefix(8).map { id in
                id + " at " + pages.enumerated().flatMap { number, page in
                    page.items.filter { $0.id == id }.map { "page \(number + 1) position \($0.position) team \($0.team)" }
                }.joined(separator: ", ")
            }
            found.append("\(name) [\(arm)]: shown twice: \(places)")
        }
        if items.map(\.position) != Array(0..<items.count) { found.append("\(name): positions are not 0..<\(items.count)") }
        for (number, page) in pages.enumerated() {
            if requireExact, page.walk != "exact" { found.append("\(name) page \(number + 1): walk \(page.walk)") }
            if number < pages.count - 1, page.items.count != perPage {
                found.append("\(name) page \(number + 1): \(page.items.count) items on a page that is not the last")
            }
        }
        guard let first = pages.first, let last = pages.last else { return ["\(name): no page"] }
        // Every document that matched from page 1 to the last page is shown.
        let during = churn.versions(during: first.started...last.ended)
        var always = during.first?.matches[query] ?? []
        for version in during.dropFirst() { always.formIntersection(version.matches[query] ?? []) }
        let missing = always.subtracting(ids)
        if !missing.isEmpty { found.append("\(name): \(missing.count) documents matching throughout never shown: \(missing.sorted().prefix(8))") }
        // A's documents on a page matched at some moment of that page's request.
        for (number, page) in pages.enumerated() {
            found += Self.stale(page, label: "\(name) page \(number + 1)", query: query, churn: churn)
        }
        // The same cursor again: the same page, less documents deleted (or changed) since.
        for (number, again) in repeats {
            let original = pages[number]
            let label = "\(name) page \(number + 1) again"
            found += Self.stale(again, label: label, query: query, churn: churn)
            let kept = Set(again.items)
            if !kept.isSubset(of: original.items) { found.append("\(label): items the page did not have: \(kept.subtracting(original.items))") }
            let changed = churn.log.filter { $0.started <= again.ended && $0.committed >= original.started }.reduce(into: Set<String>()) {
                $0.formUnion($1.touched)
            }
            let dropped = original.items.filter { !kept.contains($0) }
            if dropped.contains(where: { $0.team != "A" || !changed.contains($0.id) }) {
                found.append("\(label): dropped items that were not deleted or changed: \(dropped.filter { $0.team != "A" || !changed.contains($0.id) })")
            }
            if Self.withoutExpiry(again.nextCursor, codec) != Self.withoutExpiry(original.nextCursor, codec) {
                found.append("\(label): another next_cursor")
            }
        }
        return found
    }

    /// A cursor as the gateway reads it, but for its expiry (a page served again may extend it).
    static func withoutExpiry(_ text: String?, _ codec: CursorCodec) -> String {
        guard let text else { return "none" }
        guard var cursor = try? codec.decodeSearch(text) else { return "unreadable \(text)" }
        cursor.expiresAt = 0
        return "\(cursor)"
    }

    /// A's items of `page` that no version seen during its request matched (deleted before it began).
    static func stale(_ page: Page, label: String, query: String, churn: CorpusChurn) -> [String] {
        let seen = churn.versions(during: page.started...page.ended).reduce(into: Set<String>()) { $0.formUnion($1.matches[query] ?? []) }
        let stale = page.items.filter { $0.team == "A" && !seen.contains($0.id) }
        return stale.isEmpty ? [] : ["\(label): shows documents gone before it was asked for: \(stale.map(\.id))"]
    }
}
