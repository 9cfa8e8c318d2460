import BraidCore
import CXapianShim
import Foundation
import Logging
import NIOPosix
import SQLiteNIO
import Synchronization

/// The default live source: a Xapian index of the SQLite corpus, ranked with pruning.
///
/// FTS5 scores every match of a query before it sorts them, so a word in a third of a million
/// recipes costs hundreds of milliseconds. Xapian keeps, per term, an upper bound of what it can
/// add to a score, and stops scoring documents that cannot reach the page (max-score pruning):
/// the same page for a fraction of the work. It also stops counting once it has counted enough,
/// so a total past ``Options/countAtLeast`` is a lower bound, said so in the result.
///
/// The SQLite corpus stays the source of truth and the store of fields: the index holds terms,
/// the two values the profiles sort by and each document's id, and follows the corpus's change
/// log (``XapianIndexer``). Every query first reads the log's last change and, if the index has
/// not applied it, waits for it to; so a page never shows a document whose deletion committed
/// before the query, and a document added before it is among its matches. The page's rows are
/// read from SQLite by `seq` (the Xapian document id) after the query; when one was deleted in
/// between, the query runs again (at most ``attempts`` times, the last page going without it).
///
/// Profiles: `relevance` is BM25 (k1 1.2, b 0.75, as FTS5's bm25) with a field's weight as the
/// within-document frequency of its words; `popularity_boosted` adds `popularity_weight` times
/// the logarithm of popularity; `newest` sorts by publication date. Ties go to the lower `seq`.
public struct XapianSearchSource: SearchSource {
    public struct Options: Sendable, Hashable {
        public var weights: SQLiteSearchSource.Weights
        /// Score points per natural-log unit of popularity in `popularity_boosted`.
        public var popularityWeight: Double
        /// Matches counted exactly past the page before a total becomes a lower bound
        /// (`search.xapian.count_at_least`; like Elasticsearch's `track_total_hits`).
        public var countAtLeast: Int
        /// Queries that run at once, each on a thread of its own (`search.xapian.readers`).
        public var readers: Int

        public init(weights: SQLiteSearchSource.Weights = .init(), popularityWeight: Double = 1.0, countAtLeast: Int = 10_000, readers: Int = 4) {
            self.weights = weights
            self.popularityWeight = popularityWeight
            self.countAtLeast = max(SearchResult.minimumLowerBoundMargin, countAtLeast)
            self.readers = max(1, readers)
        }
    }

    public let corpusPath: String
    public let indexPath: String
    public let options: Options
    private let engine: Engine

    /// Prefixed to the revision in ``SearchResult/matchGeneration``: the version of how text
    /// becomes terms and a query clauses (``XapianTerms``).
    static let matchRules = "xapian-1"

    /// Reads of one request while its hits' rows are being deleted under it; the last one's
    /// page goes without them.
    static let attempts = 5

    /// - Parameter indexPath: the index directory; nil: `<corpusPath>.xapian`. Built on the
    ///   first query when missing (or by `braid seed`).
    public init(corpusPath: String, indexPath: String? = nil, options: Options = Options(), logger: Logger = Logger(label: "braid.search.xapian")) {
        self.corpusPath = corpusPath
        self.indexPath = indexPath ?? Self.defaultIndexPath(corpusPath: corpusPath)
        self.options = options
        self.engine = Engine(corpusPath: corpusPath, indexPath: self.indexPath, options: options, logger: logger)
    }

    public static func defaultIndexPath(corpusPath: String) -> String { corpusPath + ".xapian" }

    public func search(_ request: SearchRequest) async throws -> SearchResult {
        try request.validate()
        guard let clauses = XapianTerms.clauses(request.query) else { return .empty }
        guard request.size > 0 || request.needsTotal else { return .empty }
        let query = XapianQuery(
            clauses: clauses, profile: Self.profile(request.profile), popularityWeight: options.popularityWeight,
            excluded: SQLiteSearchStatements.unique(request.excluding), only: request.ids.map(SQLiteSearchStatements.unique),
            from: request.from, size: request.size,
            checkAtLeast: request.needsTotal ? request.from + request.size + options.countAtLeast : 0)
        do {
            // A hit whose row is gone was deleted after the index was read. The query runs again
            // (its index then has the deletion): a page short of a document would tell the
            // gateway that the matches end there.
            var attempt = 0
            while true {
                attempt += 1
                let read = try await engine.read(query)
                let rows = try await engine.rows(read.hits.map(\.docid))
                let hits = read.hits.compactMap { hit -> SearchHit? in
                    guard let row = rows[Int(hit.docid)], row.column("id")?.string == hit.id else { return nil }
                    return SearchHit(id: hit.id, score: hit.score, fields: RecipeRow.fields(row))
                }
                guard hits.count == read.hits.count || attempt == Self.attempts else { continue }
                return SearchResult(
                    hits: hits, total: request.needsTotal ? read.lowerBound : 0, matchGeneration: "\(Self.matchRules):\(read.revision)",
                    totalIsLowerBound: request.needsTotal && read.lowerBound != read.upperBound)
            }
        } catch let error as XapianError {
            throw SearchSourceError(.unavailable, "search index at \(indexPath) failed: \(error)")
        } catch let error as SQLiteError {
            if Task.isCancelled { throw CancellationError() }
            throw SearchSourceError(.unavailable, "corpus query failed at \(corpusPath): \(error)")
        }
    }

    /// Brings the index up to the corpus now (building it when missing), as the first query would.
    public func catchUp() async throws {
        try await engine.catchUp()
    }

    static func profile(_ profile: RankingProfile) -> Int32 {
        switch profile {
        case .relevance: Int32(BRAID_XAPIAN_RELEVANCE)
        case .popularityBoosted: Int32(BRAID_XAPIAN_POPULARITY_BOOSTED)
        case .newest: Int32(BRAID_XAPIAN_NEWEST)
        }
    }

    public func shutdown() async throws {
        try await engine.shutdown()
    }

    /// The read handles, their threads, the corpus connections and the indexer.
    final class Engine: Sendable {
        let corpus: SQLiteConnectionPool
        let indexer: XapianIndexer
        let indexPath: String
        private let threads: NIOThreadPool
        private let idle = Mutex<[XapianReader]>([])

        init(corpusPath: String, indexPath: String, options: Options, logger: Logger) {
            self.indexPath = indexPath
            corpus = SQLiteConnectionPool(path: corpusPath, size: options.readers, name: "search", logger: logger)
            indexer = XapianIndexer(corpusPath: corpusPath, indexPath: indexPath, weights: options.weights, logger: logger)
            threads = NIOThreadPool(numberOfThreads: options.readers)
            threads.start()
        }

        deinit { threads.shutdownGracefully { _ in } }

        struct Read {
            var hits: [XapianReader.Hit]
            var lowerBound: Int
            var upperBound: Int
            var revision: String
        }

        /// `query` on a revision that has applied every change committed before it was asked.
        func read(_ query: XapianQuery) async throws -> Read {
            let state = try await corpusState()
            while true {
                if let read = try await onThread({ reader -> Read? in
                    guard try XapianIndexer.IndexedState(reader).covers(state) else { return nil }
                    let hits = try reader.search(query)
                    return Read(
                        hits: hits.hits, lowerBound: hits.lowerBound, upperBound: hits.upperBound,
                        revision: try reader.metadata(XapianIndexer.Key.revision))
                }) {
                    return read
                }
                try await indexer.catchUp(to: state)
            }
        }

        func catchUp() async throws {
            try await indexer.catchUp(to: try await corpusState())
        }

        /// The rows of `seqs` by `seq`.
        func rows(_ seqs: [UInt32]) async throws -> [Int: SQLiteRow] {
            guard !seqs.isEmpty else { return [:] }
            let placeholders = Array(repeating: "?", count: seqs.count).joined(separator: ",")
            let rows = try await corpus.withConnection {
                try await $0.query("SELECT r.seq AS seq, \(RecipeRow.columns) FROM recipes AS r WHERE r.seq IN (\(placeholders))", seqs.map { .integer(Int($0)) })
            }
            return Dictionary(rows.compactMap { row in row.column("seq")?.integer.map { ($0, row) } }, uniquingKeysWith: { first, _ in first })
        }

        private func corpusState() async throws -> XapianIndexer.CorpusState {
            do {
                let row = try await corpus.withConnection { try await $0.query(XapianIndexer.CorpusState.query, []).first }
                if let state = XapianIndexer.CorpusState(row) { return state }
            } catch let error as SQLiteError where "\(error)".contains("no such table") {
                // A corpus written before the change log: the indexer adds it.
            }
            try await indexer.addChangeLog()
            let row = try await corpus.withConnection { try await $0.query(XapianIndexer.CorpusState.query, []).first }
            guard let state = XapianIndexer.CorpusState(row) else { throw SearchSourceError(.unavailable, "the corpus has no change log") }
            return state
        }

        /// Runs `body` on a reader at the latest revision, on a thread of the engine's pool. A
        /// handle of an index renamed away (built again) is dropped for a new one.
        private func onThread<T: Sendable>(_ body: @escaping @Sendable (XapianReader) throws -> T?) async throws -> T? {
            try await threads.runIfActive { [indexPath] in
                guard FileManager.default.fileExists(atPath: indexPath) else { return nil }
                var reader = try self.idle.withLock { $0.popLast() } ?? XapianReader(path: indexPath)
                do {
                    try reader.reopen()
                    var result = try body(reader)
                    if result == nil {
                        // Maybe a handle of the index before a rebuild: a new handle opens the new one.
                        reader = try XapianReader(path: indexPath)
                        result = try body(reader)
                    }
                    self.idle.withLock { $0.append(reader) }
                    return result
                } catch let error as XapianError where error.code == .modified || error.code == .notFound {
                    return nil
                }
            }
        }

        func shutdown() async throws {
            idle.withLock { $0.removeAll() }
            try await corpus.shutdown()
        }
    }
}
