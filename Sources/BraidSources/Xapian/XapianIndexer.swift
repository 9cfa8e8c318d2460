import BraidCore
import Foundation
import Logging
import NIOCore
import SQLiteNIO

/// Keeps a Xapian index in step with its SQLite corpus, the source of truth.
///
/// Every write to `recipes`, by any program, appends the row to the corpus's change log in its
/// own transaction (``CorpusSchema/changeLog``). The index stores, as metadata, the corpus it
/// follows (`identity`) and the last change it applied (`mark`); ``catchUp(to:)`` applies the
/// changes after its mark, re-reading each changed row as it is now (a change applied twice is
/// the same change), and commits them with the new mark in one Xapian revision. One writer at
/// a time, across processes: Xapian's write lock. An index of another corpus, missing, or
/// behind the log's pruned part is built again, whole, beside the old one and renamed over
/// it, so readers always open a complete index.
actor XapianIndexer {
    /// The corpus as its change log says: which corpus, the last change, the pruned part.
    struct CorpusState: Sendable, Hashable {
        var identity: String
        var mark: Int64
        var prunedThrough: Int64

        static let query = """
            SELECT (SELECT id FROM corpus_identity) AS identity, (SELECT pruned_through FROM corpus_identity) AS pruned,
                (SELECT coalesce(max(change), 0) FROM recipe_changes) AS mark
            """

        init(identity: String, mark: Int64, prunedThrough: Int64) {
            self.identity = identity
            self.mark = mark
            self.prunedThrough = prunedThrough
        }

        init?(_ row: SQLiteRow?) {
            guard let row, let identity = row.column("identity")?.string else { return nil }
            self.init(
                identity: identity, mark: Int64(row.column("mark")?.integer ?? 0), prunedThrough: Int64(row.column("pruned")?.integer ?? 0))
        }
    }

    /// Metadata keys of the index.
    enum Key {
        static let identity = "braid.corpus_identity"
        static let mark = "braid.corpus_mark"
        /// Random per commit: names the revision in ``SearchResult/matchGeneration``.
        static let revision = "braid.revision"
    }

    let corpusPath: String
    let indexPath: String
    let weights: SQLiteSearchSource.Weights
    private let logger: Logger
    /// The catch-up running now: callers that need the index wait for it rather than start another.
    private var running: Task<Void, any Error>?

    /// Rows read and indexed per batch.
    static let batch = 2_000
    /// Changes kept in the log past the index's mark before the log is pruned.
    static let pruneAfter: Int64 = 10_000

    init(corpusPath: String, indexPath: String, weights: SQLiteSearchSource.Weights, logger: Logger) {
        self.corpusPath = corpusPath
        self.indexPath = indexPath
        self.weights = weights
        self.logger = logger
    }

    /// Returns once the index has applied the corpus's changes up to `state.mark`. Catch-ups
    /// run one at a time and outlive the caller: a page that gives up at its deadline leaves the
    /// index to finish for the next.
    func catchUp(to state: CorpusState) async throws {
        // Each catch-up reaches the log's last change when it starts, which is at least
        // `state.mark`: more than one means another process replaced the index meanwhile.
        for _ in 0..<Self.catchUpAttempts {
            if let running {
                try await running.value
                self.running = nil
            }
            if try Self.indexedState(indexPath)?.covers(state) == true { return }
            let task = Task { [corpusPath, indexPath, weights, logger] in
                try await Self.apply(corpusPath: corpusPath, indexPath: indexPath, weights: weights, logger: logger)
            }
            running = task
            try await task.value
            running = nil
        }
        throw SearchSourceError(.unavailable, "the search index at \(indexPath) does not reach the corpus's change \(state.mark)")
    }

    static let catchUpAttempts = 5

    /// Adds the change log to a corpus written without it (``CorpusSchema/changeLog``).
    func addChangeLog() async throws {
        let corpus = try await Self.openCorpus(corpusPath)
        do {
            try await corpus.execute(CorpusSchema.changeLog)
            try await (corpus.close() as EventLoopFuture<Void>).get()
        } catch {
            try? await (corpus.close() as EventLoopFuture<Void>).get()
            throw error
        }
    }

    /// What the index at `path` has applied; nil when there is none.
    static func indexedState(_ path: String) throws -> IndexedState? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        do {
            return try IndexedState(XapianReader(path: path))
        } catch let error as XapianError where error.code == .notFound {
            return nil
        }
    }

    /// The identity and mark an index was committed with.
    struct IndexedState: Hashable {
        var identity: String
        var mark: Int64

        func covers(_ state: CorpusState) -> Bool { identity == state.identity && mark >= state.mark }

        /// What `reader`'s revision has applied.
        init(_ reader: XapianReader) throws {
            identity = try reader.metadata(Key.identity)
            mark = Int64(try reader.metadata(Key.mark)) ?? -1
        }
    }

    /// One catch-up: the changes since the index's mark, or the whole corpus.
    private static func apply(corpusPath: String, indexPath: String, weights: SQLiteSearchSource.Weights, logger: Logger) async throws {
        let corpus = try await openCorpus(corpusPath)
        do {
            try await corpus.execute(CorpusSchema.changeLog)
            try await applyChanges(corpus: corpus, corpusPath: corpusPath, indexPath: indexPath, weights: weights, logger: logger)
            try await (corpus.close() as EventLoopFuture<Void>).get()
        } catch {
            try? await (corpus.close() as EventLoopFuture<Void>).get()
            throw error
        }
    }

    private static func applyChanges(corpus: SQLiteConnection, corpusPath: String, indexPath: String, weights: SQLiteSearchSource.Weights, logger: Logger) async throws {
        guard let state = CorpusState(try await corpus.query(CorpusState.query, []).first) else {
            throw SearchSourceError(.unavailable, "the corpus at \(corpusPath) has no identity")
        }
        let writer = try await lockedWriter(indexPath)
        let identity = try writer.metadata(Key.identity)
        let mark = Int64(try writer.metadata(Key.mark)) ?? -1
        guard identity == state.identity, mark >= state.prunedThrough, mark >= 0 else {
            // Another corpus's index, a new one, or one the log no longer reaches: built whole.
            // The lock of the old one is kept until the new one is in its place.
            try await build(corpus: corpus, state: state, indexPath: indexPath, weights: weights, logger: logger)
            return
        }
        guard mark < state.mark else { return }
        var done: Int64 = mark
        while done < state.mark {
            let upTo = min(state.mark, done + Int64(batch))
            let seqs = try await corpus.query(
                "SELECT DISTINCT seq FROM recipe_changes WHERE change > ? AND change <= ?", [.integer(Int(done)), .integer(Int(upTo))]
            ).compactMap { $0.column("seq")?.integer }
            try await index(seqs: seqs, corpus: corpus, writer: writer, weights: weights)
            done = upTo
        }
        try writer.setMetadata(Key.mark, String(state.mark))
        try writer.setMetadata(Key.revision, Self.randomToken())
        try writer.commit()
        if state.mark - state.prunedThrough > pruneAfter {
            // The index holds everything up to its mark: the log before it is no longer needed
            // (an index elsewhere that is behind it is built again).
            _ = try await corpus.query("DELETE FROM recipe_changes WHERE change <= ?", [.integer(Int(state.mark))])
            _ = try await corpus.query("UPDATE corpus_identity SET pruned_through = max(pruned_through, ?)", [.integer(Int(state.mark))])
        }
    }

    /// Replaces each of `seqs` by its row now, or deletes it when it has none.
    private static func index(seqs: [Int], corpus: SQLiteConnection, writer: XapianWriter, weights: SQLiteSearchSource.Weights) async throws {
        guard !seqs.isEmpty else { return }
        let placeholders = Array(repeating: "?", count: seqs.count).joined(separator: ",")
        let rows = try await corpus.query("SELECT \(rowColumns) FROM recipes WHERE seq IN (\(placeholders))", seqs.map { .integer($0) })
        let documents = rows.compactMap(Document.init)
        let present = Set(documents.map(\.seq))
        for document in documents { try document.write(to: writer, weights: weights) }
        for seq in seqs where !present.contains(seq) { try writer.delete(docid: UInt32(seq)) }
    }

    /// The whole corpus into a new index beside `indexPath`, renamed over it once committed.
    private static func build(corpus: SQLiteConnection, state: CorpusState, indexPath: String, weights: SQLiteSearchSource.Weights, logger: Logger)
        async throws
    {
        let started = ContinuousClock.now
        let building = indexPath + ".building-\(randomToken())"
        defer { try? FileManager.default.removeItem(atPath: building) }
        var documents = 0
        do {
            let writer = try XapianWriter(path: building, overwrite: true)
            var after = 0
            while true {
                let rows = try await corpus.query(
                    "SELECT \(rowColumns) FROM recipes WHERE seq > ? ORDER BY seq LIMIT \(batch)", [.integer(after)])
                guard let last = rows.last?.column("seq")?.integer else { break }
                let read = rows.compactMap(Document.init)
                let postings = await Self.postings(of: read, weights: weights)
                for (document, postings) in zip(read, postings) { try document.write(to: writer, postings: postings) }
                documents += read.count
                after = last
                if documents % 100_000 < Self.batch { try writer.commit() }
            }
            // Rows written during the scan are in the log after `state.mark`: the next catch-up applies them.
            try writer.setMetadata(Key.identity, state.identity)
            try writer.setMetadata(Key.mark, String(state.mark))
            try writer.setMetadata(Key.revision, randomToken())
            try writer.commit()
        }
        let old = indexPath + ".old-\(randomToken())"
        let manager = FileManager.default
        if manager.fileExists(atPath: indexPath) { try manager.moveItem(atPath: indexPath, toPath: old) }
        try manager.moveItem(atPath: building, toPath: indexPath)
        try? manager.removeItem(atPath: old)
        logger.info(
            "built the search index", metadata: ["index": "\(indexPath)", "documents": "\(documents)", "seconds": "\(started.duration(to: .now))"])
    }

    /// Each document's postings, computed on a thread per core (tokenising is most of a build).
    private static func postings(of documents: [Document], weights: SQLiteSearchSource.Weights) async -> [[XapianTerms.Posting]] {
        let workers = max(1, min(ProcessInfo.processInfo.activeProcessorCount, documents.count / 100))
        let chunk = (documents.count + workers - 1) / max(1, workers)
        return await withTaskGroup(of: (Int, [[XapianTerms.Posting]]).self) { group in
            for start in stride(from: 0, to: documents.count, by: max(1, chunk)) {
                let slice = Array(documents[start..<min(start + chunk, documents.count)])
                group.addTask { (start, await runOffPool { slice.map { $0.postings(weights: weights) } }) }
            }
            var parts: [(Int, [[XapianTerms.Posting]])] = []
            for await part in group { parts.append(part) }
            return parts.sorted { $0.0 < $1.0 }.flatMap(\.1)
        }
    }

    /// The write handle, waiting for another writer (of any process) to let go.
    private static func lockedWriter(_ path: String) async throws -> XapianWriter {
        while true {
            do {
                return try XapianWriter(path: path, overwrite: false)
            } catch let error as XapianError where error.code == .locked {
                try await Task.sleep(for: .milliseconds(20))
            }
        }
    }

    private static func openCorpus(_ path: String) async throws -> SQLiteConnection {
        guard FileManager.default.fileExists(atPath: path) else {
            throw SearchSourceError(.unavailable, "no corpus at \(path) (run `braid seed`)")
        }
        let connection = try await SQLiteConnection.open(storage: .file(path: path), logger: Logger(label: "braid.search.xapian"))
        _ = try await connection.query("PRAGMA busy_timeout = 10000", [])
        return connection
    }

    static let rowColumns = "seq, id, title, ingredients, category, published_at, popularity_log"

    /// A `recipes` row as the index needs it.
    struct Document: Sendable {
        var seq: Int
        var id: String
        var title: String
        var ingredients: String
        var category: String
        var publishedAt: Double
        var popularityLog: Double

        init?(_ row: SQLiteRow) {
            guard let seq = row.column("seq")?.integer, let id = row.column("id")?.string else { return nil }
            self.seq = seq
            self.id = id
            title = row.column("title")?.string ?? ""
            ingredients = row.column("ingredients")?.string ?? ""
            category = row.column("category")?.string ?? ""
            publishedAt = Double(row.column("published_at")?.integer ?? 0)
            popularityLog = row.column("popularity_log")?.double ?? 0
        }

        func postings(weights: SQLiteSearchSource.Weights) -> [XapianTerms.Posting] {
            XapianTerms.postings(title: title, ingredients: ingredients, category: category, weights: weights)
        }

        func write(to writer: XapianWriter, weights: SQLiteSearchSource.Weights) throws {
            try write(to: writer, postings: postings(weights: weights))
        }

        func write(to writer: XapianWriter, postings: [XapianTerms.Posting]) throws {
            try writer.replace(docid: UInt32(seq), id: id, postings: postings, popularityLog: popularityLog, publishedAt: publishedAt)
        }
    }

    static func randomToken() -> String { String(UInt64.random(in: 0...UInt64.max), radix: 16) }
}
