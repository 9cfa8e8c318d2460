@testable import BraidSources
import Foundation
import SQLiteNIO
import Synchronization
import Testing

@Suite("SQLite connection pool: statements stop at their deadline, page caches stay bounded")
struct SQLiteConnectionPoolTests {
    /// How long a statement may take before a test calls it hung: a limit only so that a hang
    /// fails. Beside a build on two cores, the fast tier's tasks have waited tens of seconds
    /// for a thread (an uninterrupted ``endless`` takes longer, or completes and fails anyway).
    static let patience = Duration.seconds(90)

    /// Counts to a billion in SQLite: minutes of one core, far past any deadline.
    static let endless = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c LIMIT 1000000000) SELECT count(*) AS n FROM c"

    /// The task of a statement past its deadline is cancelled (``Deadline`` in the gateway): the
    /// statement is interrupted, the task ends, and the pool's only connection serves the next
    /// query. Without the interrupt the statement runs on and holds the connection.
    @Test func aCancelledStatementIsInterruptedAndItsConnectionServesTheNextQuery() async throws {
        try await CorpusFixture.withCorpus(documents: 50) { path in
            let pool = SQLiteConnectionPool(path: path, size: 1)
            let slow = Task { try await pool.withConnection { try await $0.query(Self.endless, []) }.count }
            // Long enough for the statement to be running (an interrupt before it starts is repeated anyway).
            try await Task.sleep(for: .milliseconds(300))
            slow.cancel()
            let ended = await Self.within(Self.patience) { await slow.result }
            #expect(ended != nil, "the cancelled statement still ran after \(Self.patience)")
            if case .success(let rows)? = ended { Issue.record("the statement completed (\(rows) rows) instead of being interrupted") }
            let next = await Self.within(Self.patience) {
                try? await pool.withConnection { try await $0.query("SELECT 41 + 1 AS n", []) }.first?.column("n")?.integer
            }
            #expect(next == 42, "the next query did not get the connection")
            if ended != nil { try await pool.shutdown() }
        }
    }

    /// The interrupt reaches only the cancelled task's statement: another task's statement on
    /// the next lease of the same connection runs to its end.
    @Test func anInterruptDoesNotReachTheNextLease() async throws {
        try await CorpusFixture.withCorpus(documents: 50) { path in
            let pool = SQLiteConnectionPool(path: path, size: 1)
            let finite = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c LIMIT 200000) SELECT count(*) AS n FROM c"
            for _ in 0..<5 {
                let cancelled = Task { try await pool.withConnection { try await $0.query(Self.endless, []) } }
                try await Task.sleep(for: .milliseconds(50))
                // Waits in line for the connection, and gets it the moment the interrupt frees it.
                let other = Task { try await pool.withConnection { try await $0.query(finite, []) }.first?.column("n")?.integer }
                try await Task.sleep(for: .milliseconds(20))
                cancelled.cancel()
                _ = await cancelled.result
                switch await Self.within(Self.patience, { await other.result }) {
                case .success(let counted)?: #expect(counted == 200_000)
                case .failure(let error)?: Issue.record("the statement of the next lease failed: \(error)")
                case nil: Issue.record("the statement of the next lease did not end within \(Self.patience)")
                }
            }
            try await pool.shutdown()
        }
    }

    /// `search.sqlite.page_cache_mib` bounds what each connection keeps: reading a corpus several
    /// times that size leaves a connection holding about its bound, and a larger bound holds more.
    @Test func eachConnectionsPageCacheStaysWithinItsBound() async throws {
        try await CorpusFixture.withCorpus(documents: 5_000) { path in
            let fileBytes = try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
            #expect(fileBytes > 3 << 20, "the corpus (\(fileBytes) bytes) is too small to outgrow a 1 MiB cache")
            func held(mib: Int) async throws -> Int {
                let pool = SQLiteConnectionPool(path: path, size: 1, pageCacheMiB: mib)
                for sql in [
                    "SELECT sum(length(title) + length(ingredients) + length(author)) AS n FROM recipes",
                    "SELECT sum(length(hex(block))) AS n FROM recipes_fts_data",
                    "SELECT sum(length(hex(block))) AS n FROM recipes_trigram_data",
                    "SELECT sum(length(ingredient)) AS n FROM recipe_ingredients",
                ] {
                    _ = try await pool.withConnection { try await $0.query(sql, []) }
                }
                let bytes = pool.pageCacheBytes
                try await pool.shutdown()
                return bytes
            }
            let small = try await held(mib: 1)
            let large = try await held(mib: 64)
            #expect(small > 0 && small <= 1_200_000, "a 1 MiB cache held \(small) bytes")
            #expect(large > 2 * small, "a 64 MiB cache held \(large) bytes, a 1 MiB one \(small)")
        }
    }

    @Test func theConnectionHandleOfSQLiteNIOIsReadable() async throws {
        let connection = try await SQLiteConnection.open(storage: .memory)
        #expect(SQLiteConnectionPool.RawHandle(of: connection) != nil)
        try await SQLiteConnectionPool.close(connection)
    }

    /// `operation`'s result, or nil after `limit` (the operation is then left running).
    static func within<T: Sendable>(_ limit: Duration, _ operation: @escaping @Sendable () async -> T) async -> T? {
        let first = FirstOf<T>()
        return await withCheckedContinuation { continuation in
            first.wait(continuation)
            Task { first.finish(await operation()) }
            Task {
                try? await Task.sleep(for: limit)
                first.finish(nil)
            }
        }
    }

    /// Resumes its waiter with the first value it is given.
    final class FirstOf<T: Sendable>: Sendable {
        private let waiter = Mutex<CheckedContinuation<T?, Never>?>(nil)
        func wait(_ continuation: CheckedContinuation<T?, Never>) { waiter.withLock { $0 = continuation } }
        func finish(_ value: T?) { waiter.withLock { $0.take() }?.resume(returning: value) }
    }
}
