import BraidCore
@testable import BraidSources
import Foundation
import SQLiteNIO
import Testing

/// What the Xapian source does beyond what every embedded source promises
/// (``SQLiteSearchSourceTests`` holds it to those): following the corpus's changes, totals
/// that stop counting, and the rules that turn text into terms.
@Suite("Xapian search source")
struct XapianSearchSourceTests {
    /// Each write changes the match set of "curry" by `change`; `?` is its first hit's id. The
    /// writer knows nothing of the index: it writes `recipes` through plain SQLite.
    @Test(arguments: [
        ("UPDATE recipes SET title = 'Plain bread', ingredients = '', category = '' WHERE id = ?", -1),
        ("INSERT INTO recipes (id, title) VALUES ('outsider-1', 'Curry from elsewhere')", 1),
        ("DELETE FROM recipes WHERE id = ?", -1),
    ])
    func aWriteByAnotherProgramIsInTheNextQueryUnderANewGeneration(write: String, change: Int) async throws {
        try await CorpusFixture.withCorpus(documents: 200) { path in
            let source = XapianSearchSource(corpusPath: path)
            do {
                let before = try await source.search(SearchRequest(query: "curry", size: 10))
                let generation = try #require(before.matchGeneration)
                #expect(generation.hasPrefix("xapian-1:"))
                let other = try await SQLiteConnection.open(storage: .file(path: path))
                _ = try await other.query(write, write.contains("?") ? [.text(before.hits[0].id)] : [])
                try await other.close()
                let after = try await source.search(SearchRequest(query: "curry", size: 10))
                #expect(after.total == before.total + change)
                #expect(!before.totalIsLowerBound && !after.totalIsLowerBound)
                #expect(after.matchGeneration != nil && after.matchGeneration != generation)
                if change < 0 { #expect(!after.hits.map(\.id).contains(before.hits[0].id)) }
                if change > 0 { #expect(try await source.search(SearchRequest(query: "elsewhere", size: 5)).hits.map(\.id) == ["outsider-1"]) }
                // No write, no new revision: the generation vouches for the same matches.
                #expect(try await source.search(SearchRequest(query: "rice", size: 3)).matchGeneration == after.matchGeneration)
                try await source.shutdown()
            } catch {
                try? await source.shutdown()
                throw error
            }
        }
    }

    /// The removed mechanism this guards: without the change log, the edit below is not seen,
    /// and the old title still matches.
    @Test func anEditIsSeenByTheNextQueryAsTheCorpusHasIt() async throws {
        try await CorpusFixture.withCorpus(documents: 200) { path in
            let source = XapianSearchSource(corpusPath: path)
            let first = try await source.search(SearchRequest(query: "curry", size: 1)).hits[0]
            try await CorpusWriter.add([CorpusRecipe(id: first.id, title: "Zanzibar pilau")], path: path)
            let moved = try await source.search(SearchRequest(query: "zanzibar", size: 5))
            let gone = try await source.search(SearchRequest(query: "curry", size: 200))
            try await source.shutdown()
            #expect(moved.hits.map(\.id) == [first.id])
            #expect(moved.hits.first?.fields["title"]?.stringValue == "Zanzibar pilau")
            #expect(!gone.hits.map(\.id).contains(first.id))
        }
    }

    @Test func aCorpusSeededAgainIsIndexedAgain() async throws {
        let path = CorpusFixture.temporaryPath()
        defer { CorpusFixture.remove(path) }
        _ = try await CorpusWriter.seed(CorpusGenerator(seed: 1, documents: 150, users: 5), path: path)
        let first = XapianSearchSource(corpusPath: path)
        let before = try await first.search(SearchRequest(query: "curry", size: 200))
        try await first.shutdown()
        _ = try await CorpusWriter.seed(CorpusGenerator(seed: 2, documents: 300, users: 5), path: path)
        let second = XapianSearchSource(corpusPath: path)
        let after = try await second.search(SearchRequest(query: "curry", size: 200))
        let truth = SQLiteSearchSource(path: path)
        let expected = try await truth.search(SearchRequest(query: "curry", size: 200))
        try await second.shutdown()
        try await truth.shutdown()
        #expect(expected.total < 200 && Set(after.hits.map(\.id)) == Set(expected.hits.map(\.id)))
        #expect(after.total == expected.total && after.total != before.total)
        #expect(after.matchGeneration != before.matchGeneration)
    }

    /// A corpus written by a braid without the change log (or by another program) gets it on
    /// the first query, which indexes the corpus whole.
    @Test func aCorpusWithoutAChangeLogGetsOne() async throws {
        try await CorpusFixture.withCorpus(documents: 200) { path in
            let writer = try await SQLiteConnection.open(storage: .file(path: path))
            for statement in ["DROP TRIGGER recipes_insert_logs_change", "DROP TABLE recipe_changes", "DROP TABLE corpus_identity"] {
                _ = try await writer.query(statement, [])
            }
            try await writer.close()
            let source = XapianSearchSource(corpusPath: path)
            let truth = SQLiteSearchSource(path: path)
            let result = try await source.search(SearchRequest(query: "curry", size: 10))
            let expected = try await truth.search(SearchRequest(query: "curry", size: 10))
            try await source.shutdown()
            try await truth.shutdown()
            #expect(result.total == expected.total && result.hits.count == 10)
        }
    }

    @Test func aMissingCorpusIsUnavailableAndNotCreated() async throws {
        let path = CorpusFixture.temporaryPath()
        let source = XapianSearchSource(corpusPath: path)
        let error = await #expect(throws: SearchSourceError.self) { try await source.search(SearchRequest(query: "rice")) }
        try await source.shutdown()
        #expect(error?.code == .unavailable)
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    /// Past `count_at_least` matches beyond the page, a total may be a lower bound, and then it
    /// reaches at least that far past the page: a page planned with it is the page planned
    /// with the exact total. Near the end of the matches the count is exact again.
    @Test func aTotalPastCountAtLeastIsALowerBoundThatReachesPastThePage() async throws {
        try await CorpusFixture.withCorpus(documents: 4_000) { path in
            let source = XapianSearchSource(corpusPath: path, options: .init(countAtLeast: 1_000))
            let truth = SQLiteSearchSource(path: path)
            do {
                let exact = try await truth.search(SearchRequest(query: "main onion", size: 0)).total
                #expect(exact > 1_500, "the query should match well past count_at_least")
                let first = try await source.search(SearchRequest(query: "main onion", size: 20))
                #expect(first.totalIsLowerBound)
                #expect(first.total >= 20 + 1_000 && first.total <= exact)
                let last = try await source.search(SearchRequest(query: "main onion", from: exact - 30, size: 20))
                #expect(!last.totalIsLowerBound && last.total == exact)
                // Not asked for, not counted: no claim either way.
                let uncounted = try await source.search(SearchRequest(query: "main onion", size: 20, needsTotal: false))
                #expect(uncounted.total == 0 && !uncounted.totalIsLowerBound)
                #expect(uncounted.hits == first.hits)
                try await source.shutdown()
                try await truth.shutdown()
            } catch {
                try? await source.shutdown()
                try? await truth.shutdown()
                throw error
            }
        }
    }

    /// The rules of ``FTSMatchExpression``, as terms: the `xapian` and `sqlite` sources match alike.
    @Test func queriesBecomeTheClausesOfTheFTS5Rules() {
        #expect(XapianTerms.clauses("Curry, of RICE!") == [.prefix("curry"), .word("of"), .prefix("rice")])
        #expect(XapianTerms.clauses("ＣＵＲＲＹ") == [.prefix("curry")])
        #expect(XapianTerms.clauses("crème brûlée") == [.prefix("creme"), .prefix("brulee")])
        #expect(XapianTerms.clauses("карри") == [.prefix("карри")])
        // CJK of three or more characters: substrings, as trigram phrases; short tokens dropped.
        #expect(XapianTerms.clauses("カレー ライス 肉") == [.phrase(["Tカレー"]), .phrase(["Tライス"])])
        #expect(XapianTerms.clauses("ビーフカレー") == [.phrase(["Tビーフ", "Tーフカ", "Tフカレ", "Tカレー"])])
        // Only short CJK tokens: prefixes of words.
        #expect(XapianTerms.clauses("親子") == [.prefix("親子")])
        #expect(XapianTerms.clauses("  \"*-() ") == nil)
        // Voiced marks are not diacritics: ガ is not カ.
        #expect(XapianTerms.fold("ガ") == "ガ" && XapianTerms.fold("Ñandú") == "Nandu")
    }

    @Test func fieldsBecomeWeightedWordsAndCJKWordsTrigramsAtConsecutivePositions() {
        let weights = SQLiteSearchSource.Weights()
        let postings = XapianTerms.postings(title: "Beef カレー丼", ingredients: "rice, beef", category: "main", weights: weights)
        #expect(postings.filter { $0.term == "beef" }.map(\.wdf) == [10, 3])
        #expect(postings.filter { $0.term == "main" }.map(\.wdf) == [1])
        #expect(postings.contains { $0.term == "カレー丼" && $0.position == 0 })
        let trigrams = postings.filter { $0.term.hasPrefix("T") }
        #expect(trigrams.map(\.term) == ["Tカレー", "Tレー丼"])
        #expect(trigrams.map(\.position) == [1, 2])
    }
}
