import BraidCore
@testable import BraidSources
import Foundation
import SQLiteNIO
import Testing
import BraidContracts

/// What every embedded source promises is tested against each (`EmbeddedSource`); what only
/// the SQLite one does (positions, counting the excluded, generations withdrawn) against it alone.
@Suite("The embedded search sources: SQLite FTS5 and Xapian")
struct SQLiteSearchSourceTests {
    private func lowercasedText(_ hit: SearchHit) -> String {
        let title = hit.fields["title"]?.stringValue ?? ""
        let ingredients: [String]
        if case .array(let items)? = hit.fields["ingredients"] { ingredients = items.compactMap(\.stringValue) } else { ingredients = [] }
        return ([title] + ingredients).joined(separator: " ").lowercased()
    }

    @Test(arguments: EmbeddedSource.allCases)
    func ranksMatchesByRelevance(source kind: EmbeddedSource) async throws {
        try await CorpusFixture.withSource(kind) { source in
            let result = try await source.search(SearchRequest(query: "curry", size: 20))
            #expect(result.total > 20)
            #expect(result.hits.count == 20)
            #expect(result.hits.allSatisfy { lowercasedText($0).contains("curry") })
            #expect(zip(result.hits, result.hits.dropFirst()).allSatisfy { $0.score >= $1.score })
            // Title words weigh more than ingredient words.
            #expect(result.hits[0].fields["title"]?.stringValue?.lowercased().contains("curry") == true)
            #expect(result.hits[0].fields["image_url"]?.stringValue == "/images/recipes/\(result.hits[0].id).jpg")
        }
    }

    @Test(arguments: EmbeddedSource.allCases)
    func exclusionRemovesIdsAndReducesTotal(source kind: EmbeddedSource) async throws {
        try await CorpusFixture.withSource(kind) { source in
            let full = try await source.search(SearchRequest(query: "potato", size: 10))
            let excluded = full.hits.prefix(3).map(\.id)
            let rest = try await source.search(SearchRequest(query: "potato", excluding: excluded + [excluded[0], "r999999", "not-a-match"], size: 10))
            #expect(full.total >= 10)
            #expect(rest.total == full.total - 3)
            #expect(rest.hits.allSatisfy { !excluded.contains($0.id) })
            #expect(rest.hits.prefix(7).map(\.id) == Array(full.hits.dropFirst(3).map(\.id)))
        }
    }

    @Test func aTotalMayCountTheExcludedIdsWhenTheCallerAsks() async throws {
        try await CorpusFixture.withSource { source in
            let full = try await source.search(SearchRequest(query: "potato", size: 10))
            let excluded = full.hits.prefix(3).map(\.id)
            let exact = try await source.search(SearchRequest(query: "potato", excluding: excluded, size: 10))
            let all = try await source.search(SearchRequest(query: "potato", excluding: excluded, size: 10, countsExcluded: false))
            #expect(!exact.totalIncludesExcluded && exact.total == full.total - 3)
            #expect(all.totalIncludesExcluded && all.total == full.total)
            // The hits leave the excluded ids out either way.
            #expect(all.hits == exact.hits)
            #expect(all.matchGeneration == exact.matchGeneration)
            // Nothing excluded: nothing to leave in.
            #expect(!(try await source.search(SearchRequest(query: "potato", size: 10, countsExcluded: false))).totalIncludesExcluded)
        }
    }

    @Test(arguments: EmbeddedSource.allCases, RankingProfile.allCases)
    func pagesConcatenateToOneBigPage(source kind: EmbeddedSource, profile: RankingProfile) async throws {
        try await CorpusFixture.withSource(kind) { source in
            let excluding = ["r000001", "r000002", "r000010"]
            let big = try await source.search(SearchRequest(query: "rice", excluding: excluding, from: 0, size: 35, profile: profile))
            var paged: [String] = []
            for page in 0..<5 {
                let result = try await source.search(
                    SearchRequest(query: "rice", excluding: excluding, from: page * 7, size: 7, profile: profile))
                #expect(result.total == big.total)
                paged += result.hits.map(\.id)
            }
            #expect(big.hits.count == 35)
            #expect(paged == big.hits.map(\.id))
            #expect(Set(paged).count == paged.count)
        }
    }

    /// Each page of a list with excluded documents is that slice of the unexcluded list with
    /// them removed, wherever they rank (the page's rows come from the first
    /// `from + size + excluded` of the sort).
    @Test(arguments: EmbeddedSource.allCases, RankingProfile.allCases)
    func excludedDocumentsAnywhereInTheRankingShiftPagesExactly(source kind: EmbeddedSource, profile: RankingProfile) async throws {
        try await CorpusFixture.withSource(kind) { source in
            let all = try await source.search(SearchRequest(query: "rice", from: 0, size: 60, profile: profile)).hits.map(\.id)
            #expect(all.count == 60)
            let excluded = [0, 3, 4, 8, 15, 22, 23, 41].map { all[$0] } + ["r999999"]
            let remaining = all.filter { !excluded.contains($0) }
            for from in stride(from: 0, to: 42, by: 7) {
                let page = try await source.search(SearchRequest(query: "rice", excluding: excluded, from: from, size: 7, profile: profile))
                #expect(page.hits.map(\.id) == Array(remaining[from..<from + 7]), "page from \(from)")
            }
        }
    }

    /// What a gateway does with B's placed documents when it knows where they stand in A: the
    /// plain ranking's rows of the window, the placed ones dropped, are the excluding page.
    @Test func positionsOfExcludedDocumentsGiveTheExcludingPagesExactly() async throws {
        try await CorpusFixture.withSource { source in
            let all = try await source.search(SearchRequest(query: "rice", from: 0, size: 80)).hits.map(\.id)
            let placed = [0, 3, 4, 8, 15, 22, 23, 41, 79].map { all[$0] } + ["r999999", "not-a-match"]
            let positions = try #require(try await source.relevancePositions(of: placed, query: "rice"))
            #expect(positions.count == 9)
            #expect(positions.positions[all[41]] == 41 && positions.positions["r999999"] == nil)
            for from in stride(from: 0, to: 60, by: 7) {
                let excluding = try await source.search(SearchRequest(query: "rice", excluding: placed, from: from, size: 7))
                let window = positions.window(covering: from..<from + 7)
                let plain = try await source.search(SearchRequest(query: "rice", from: window.lowerBound, size: window.count))
                #expect(plain.matchGeneration != nil && plain.matchGeneration == positions.matchGeneration)
                #expect(plain.hits.filter { !positions.contains($0.id) } == excluding.hits, "page from \(from)")
                #expect(plain.total - positions.count == excluding.total)
            }
        }
    }

    @Test func positionsNameTheGenerationTheyWereReadIn() async throws {
        try await CorpusFixture.withCorpus(documents: 300) { path in
            let source = SQLiteSearchSource(path: path)
            do {
                let page = try await source.search(SearchRequest(query: "curry", size: 10))
                let before = try #require(try await source.relevancePositions(of: page.hits.map(\.id), query: "curry"))
                #expect(before.matchGeneration == page.matchGeneration && before.count == 10)
                #expect(page.hits.map { before.positions[$0.id] } == Array(0..<10))
                // A write moves the ranking on: the positions no longer speak for it.
                try await CorpusWriter.add([CorpusRecipe(id: page.hits[0].id, title: "Plain bread")], path: path)
                let after = try #require(try await source.relevancePositions(of: page.hits.map(\.id), query: "curry"))
                #expect(after.matchGeneration != nil && after.matchGeneration != before.matchGeneration)
                #expect(after.count == 9 && !after.contains(page.hits[0].id))
                // None matching: nothing read, no generation to vouch with.
                #expect(try await source.relevancePositions(of: ["not-a-match"], query: "curry")?.matchGeneration == nil)
                try await source.shutdown()
            } catch {
                try? await source.shutdown()
                throw error
            }
        }
    }

    /// Equal scores (generated recipes share titles and lengths) are ordered by corpus row,
    /// which `braid seed` writes in id order: the same list whether or not a page joins every match.
    @Test(arguments: EmbeddedSource.allCases)
    func tiesFollowCorpusOrder(source kind: EmbeddedSource) async throws {
        try await CorpusFixture.withSource(kind) { source in
            let hits = try await source.search(SearchRequest(query: "rice", size: 200)).hits
            let tied = zip(hits, hits.dropFirst()).filter { $0.score == $1.score }
            #expect(tied.count >= 5, "the fixture should hold tied scores")
            #expect(tied.allSatisfy { $0.id < $1.id })
            let excluded = try await source.search(SearchRequest(query: "rice", excluding: [hits[0].id], size: 199)).hits
            #expect(excluded.map(\.id) == hits.dropFirst().map(\.id))
        }
    }

    @Test(arguments: EmbeddedSource.allCases)
    func profilesOrderDifferently(source kind: EmbeddedSource) async throws {
        try await CorpusFixture.withSource(kind) { source in
            func ids(_ profile: RankingProfile) async throws -> SearchResult {
                try await source.search(SearchRequest(query: "soup", size: 30, profile: profile))
            }
            let relevance = try await ids(.relevance)
            let boosted = try await ids(.popularityBoosted)
            let newest = try await ids(.newest)
            #expect(relevance.total == boosted.total && boosted.total == newest.total)
            #expect(relevance.hits.map(\.id) != boosted.hits.map(\.id))
            #expect(relevance.hits.map(\.id) != newest.hits.map(\.id))
            let dates = newest.hits.compactMap { $0.fields["published_at"]?.stringValue }
            #expect(dates.count == newest.hits.count)
            #expect(dates == dates.sorted(by: >))
            // The boost favours popular recipes: the boosted top ten are more popular on average.
            func meanPopularity(_ result: SearchResult) -> Double {
                result.hits.prefix(10).compactMap { $0.fields["popularity"]?.numberValue }.reduce(0, +) / 10
            }
            #expect(meanPopularity(boosted) > meanPopularity(relevance))
        }
    }

    @Test(arguments: EmbeddedSource.allCases)
    func hostileQueryTextNeverReachesSQL(source kind: EmbeddedSource) async throws {
        let hostile = [
            "\"", "\"\"\"", "curry\"", "*", "curry*", "NEAR(", "NEAR(curry rice, 2)", "OR", "curry OR rice", "AND NOT",
            "-", "-curry", "curry -rice", "\"unbalanced quote", "title:curry", "(", ")", "{title}: rice", "^curry",
            "'; DROP TABLE recipes; --", "\u{0}", "curry\u{0}rice", "🍛", "カレー\"", String(repeating: "a", count: 10_240),
            String(repeating: "\"NEAR( OR * - ", count: 800),
        ]
        try await CorpusFixture.withSource(kind) { source in
            for query in hostile {
                for profile in RankingProfile.allCases {
                    let result = try await source.search(SearchRequest(query: query, excluding: ["r000001"], size: 5, profile: profile))
                    #expect(result.total >= result.hits.count)
                }
            }
            // Operators are words, not syntax: "curry -rice" still requires rice.
            let both = try await source.search(SearchRequest(query: "curry -rice", size: 50))
            #expect(both.hits.allSatisfy { lowercasedText($0).contains("rice") })
        }
    }

    @Test(arguments: EmbeddedSource.allCases)
    func japaneseQueriesFindJapaneseTitles(source kind: EmbeddedSource) async throws {
        try await CorpusFixture.withSource(kind) { source in
            let result = try await source.search(SearchRequest(query: "カレー", size: 100))
            let titles = result.hits.compactMap { $0.fields["title"]?.stringValue }
            #expect(!titles.isEmpty)
            #expect(titles.allSatisfy { $0.contains("カレー") })
            // Substring matching: a title where カレー is not the first word is found too.
            #expect(titles.contains { $0.contains("ビーフカレー") })
            #expect(titles.contains { $0.hasPrefix("カレー") })
            // A short CJK word falls back to prefix matching.
            let short = try await source.search(SearchRequest(query: "親子", size: 10))
            #expect(!short.hits.isEmpty)
            #expect(short.hits.allSatisfy { $0.fields["title"]?.stringValue?.contains("親子丼") == true })
        }
    }

    /// A one- or two-letter token matches whole words only, so it costs what a word costs:
    /// as a prefix, `c` matches most of the corpus (every `curry`, `chicken`, `cake`…), and
    /// ranking all of it costs several times a common word. Three letters are a prefix again.
    @Test func shortTokensMatchWholeWordsAndLongerOnesArePrefixes() async throws {
        try await CorpusFixture.withCorpus { path in
            let connection = try await SQLiteConnection.open(storage: .file(path: path))
            let count = { (match: String) async throws -> Int in
                let rows = try await connection.query("SELECT count(*) AS n FROM recipes_fts WHERE recipes_fts MATCH ?", [.text(match)])
                return rows.first?.column("n")?.integer ?? -1
            }
            let prefixOfC = try await count(#""c"*"#)
            let wordC = try await count(#""c""#)
            let prefixOfCur = try await count(#""cur"*"#)
            try await SQLiteConnectionPool.close(connection)
            let source = SQLiteSearchSource(path: path)
            let short = try await source.search(SearchRequest(query: "c", size: 10))
            let mixed = try await source.search(SearchRequest(query: "C cur", size: 10))
            let three = try await source.search(SearchRequest(query: "cur", size: 10))
            let word = try await source.search(SearchRequest(query: "curry", size: 10))
            try await source.shutdown()
            #expect(prefixOfC > 400)  // of 800 recipes: the cost the rule avoids
            #expect(short.total == wordC)
            #expect(mixed.total <= wordC)
            #expect(three.total == prefixOfCur)
            #expect(three.total >= word.total && word.total > 0)
        }
    }

    @Test(arguments: EmbeddedSource.allCases)
    func fullWidthInputIsNormalised(source kind: EmbeddedSource) async throws {
        try await CorpusFixture.withSource(kind) { source in
            let ascii = try await source.search(SearchRequest(query: "curry rice", size: 15))
            let fullWidth = try await source.search(SearchRequest(query: "ＣＵＲＲＹ\u{3000}Ｒｉｃｅ", size: 15))
            #expect(!ascii.hits.isEmpty)
            #expect(fullWidth.total == ascii.total)
            #expect(fullWidth.hits.map(\.id) == ascii.hits.map(\.id))
        }
    }

    @Test(arguments: EmbeddedSource.allCases)
    func nothingSearchableGivesNoHits(source kind: EmbeddedSource) async throws {
        try await CorpusFixture.withSource(kind) { source in
            for query in ["", "   ", "\"*-()", "zzzznotaword"] {
                let result = try await source.search(SearchRequest(query: query, size: 10))
                #expect(result.hits.isEmpty && result.total == 0, "\(query)")
            }
        }
    }

    @Test(arguments: EmbeddedSource.allCases)
    func concurrentQueriesAgree(source kind: EmbeddedSource) async throws {
        try await CorpusFixture.withSource(kind) { source in
            let expected = try await source.search(SearchRequest(query: "chicken", size: 10, profile: .popularityBoosted))
            let results = try await withThrowingTaskGroup(of: SearchResult.self) { group in
                for _ in 0..<32 {
                    group.addTask { try await source.search(SearchRequest(query: "chicken", size: 10, profile: .popularityBoosted)) }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(results.count == 32)
            #expect(results.allSatisfy { $0 == expected })
        }
    }

    @Test(arguments: EmbeddedSource.allCases)
    func badRequestsAreRejected(source kind: EmbeddedSource) async throws {
        try await CorpusFixture.withSource(kind) { source in
            for request in [SearchRequest(query: "rice", from: -1), SearchRequest(query: "rice", size: 5_000)] {
                let error = await #expect(throws: SearchSourceError.self) { try await source.search(request) }
                #expect(error?.code == .badQuery)
            }
        }
    }

    @Test func missingCorpusIsUnavailableAndNotCreated() async throws {
        let path = CorpusFixture.temporaryPath()
        let source = SQLiteSearchSource(path: path)
        let error = await #expect(throws: SearchSourceError.self) { try await source.search(SearchRequest(query: "rice")) }
        #expect(error?.code == .unavailable)
        #expect(error?.isRetriable == true)
        #expect(!FileManager.default.fileExists(atPath: path))
        try await source.shutdown()
    }

    @Test func resultsCarryTheCorpusGenerationUntilAWriteReplacesIt() async throws {
        try await CorpusFixture.withCorpus(documents: 300) { path in
            let source = SQLiteSearchSource(path: path)
            do {
                let page = try await source.search(SearchRequest(query: "curry", size: 10))
                let generation = try #require(page.matchGeneration)
                #expect(generation.hasPrefix("fts5-2:") && generation.count > "fts5-2:".count)
                // Every kind of request under every profile reads the same one.
                for profile in RankingProfile.allCases {
                    let rows = try await source.search(SearchRequest(query: "rice", size: 5, profile: profile, needsTotal: false))
                    #expect(!rows.hits.isEmpty && rows.matchGeneration == generation, "\(profile)")
                }
                let count = try await source.search(SearchRequest(query: "curry", excluding: page.hits.map(\.id), size: 0))
                #expect(count.matchGeneration == generation)
                // An empty page without a total read nothing to vouch for.
                #expect(try await source.search(SearchRequest(query: "zzqx", size: 5, needsTotal: false)).matchGeneration == nil)

                // A write replaces it, also for connections opened before.
                try await CorpusWriter.add([CorpusRecipe(id: page.hits[0].id, title: "Plain bread")], path: path)
                let after = try await source.search(SearchRequest(query: "curry", size: 10))
                #expect(after.total == page.total - 1)
                #expect(after.matchGeneration != nil && after.matchGeneration != generation)
                try await source.shutdown()

                // The same corpus written again from scratch has a generation of its own.
                try await CorpusFixture.withSource(documents: 300) { again in
                    let other = try await again.search(SearchRequest(query: "curry", size: 10))
                    #expect(other.hits.map(\.id) == page.hits.map(\.id))
                    #expect(other.matchGeneration != nil && other.matchGeneration != generation)
                }
            } catch {
                try? await source.shutdown()
                throw error
            }
        }
    }

    /// Each write changes the match set of "curry" by `change`; `?` is its first hit's id.
    @Test(arguments: [
        ("UPDATE recipes SET title = 'Plain bread', ingredients = '', category = '' WHERE id = ?", -1),
        ("INSERT INTO recipes (id, title) VALUES ('outsider-1', 'Curry from elsewhere')", 1),
        ("DELETE FROM recipes WHERE id = ?", -1),
    ])
    func aWriteByAnotherProgramWithdrawsTheGenerationUntilBraidWritesAgain(write: String, change: Int) async throws {
        try await CorpusFixture.withCorpus(documents: 200) { path in
            let source = SQLiteSearchSource(path: path)
            do {
                let before = try await source.search(SearchRequest(query: "curry", size: 10))
                #expect(before.matchGeneration != nil)
                // A program that knows nothing of generations writes `recipes` and its index.
                let other = try await SQLiteConnection.open(storage: .file(path: path))
                _ = try await other.query(write, write.contains("?") ? [.text(before.hits[0].id)] : [])
                _ = try await other.query("INSERT INTO recipes_fts(recipes_fts) VALUES ('rebuild')", [])
                try await other.close()
                let withdrawn = try await source.search(SearchRequest(query: "curry", size: 10))
                #expect(withdrawn.total == before.total + change)
                #expect(withdrawn.matchGeneration == nil)
                // Braid's next write sets a new one.
                try await CorpusWriter.add([CorpusRecipe(id: "braid-1", title: "Rice")], path: path)
                let again = try await source.search(SearchRequest(query: "curry", size: 10))
                #expect(again.total == withdrawn.total)
                #expect(again.matchGeneration != nil && again.matchGeneration != before.matchGeneration)
                try await source.shutdown()
            } catch {
                try? await source.shutdown()
                throw error
            }
        }
    }

    @Test func aCorpusWithoutAGenerationVouchesForNothing() async throws {
        try await CorpusFixture.withCorpus(documents: 200) { path in
            // A corpus without the generation table: an older braid's, or another program's.
            let writer = try await SQLiteConnection.open(storage: .file(path: path))
            _ = try await writer.query("DROP TABLE corpus_generation", [])
            try await writer.close()
            let source = SQLiteSearchSource(path: path)
            let result = try await source.search(SearchRequest(query: "curry", size: 10))
            try await source.shutdown()
            #expect(result.total > 10 && result.hits.count == 10)
            #expect(result.matchGeneration == nil)
        }
    }

    /// The race this guards against (a write landing between a page and its count, which run on
    /// two connections) cannot be timed from outside the source, so the rule is tested alone.
    @Test func aResultVouchesOnlyForTheOneGenerationAllItsStatementsRead() {
        #expect(SQLiteSearchSource.matchGeneration(read: ["g1"]) == "fts5-2:g1")
        #expect(SQLiteSearchSource.matchGeneration(read: ["g1", "g1"]) == "fts5-2:g1")
        // The page read one corpus, the count the next.
        #expect(SQLiteSearchSource.matchGeneration(read: ["g1", "g2"]) == nil)
        // One statement read a corpus without the table.
        #expect(SQLiteSearchSource.matchGeneration(read: ["g1", nil]) == nil)
        #expect(SQLiteSearchSource.matchGeneration(read: [nil, "g1"]) == nil)
        #expect(SQLiteSearchSource.matchGeneration(read: [nil]) == nil)
        // No statement returned a row.
        #expect(SQLiteSearchSource.matchGeneration(read: []) == nil)
    }

    @Test(arguments: EmbeddedSource.allCases)
    func hitsBecomeSnapshotDocuments(source kind: EmbeddedSource) async throws {
        try await CorpusFixture.withSource(kind) { source in
            let result = try await source.search(SearchRequest(query: "cake", size: 3))
            #expect(result.documents.map(\.id) == result.hits.map(\.id))
            #expect(result.documents.first?.fields["title"] == result.hits.first?.fields["title"])
        }
    }
}
