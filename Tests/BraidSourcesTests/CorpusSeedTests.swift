import BraidCore
import BraidSources
import Foundation
import Synchronization
import Testing

@Suite("Corpus generation, seeding and import")
struct CorpusSeedTests {
    @Test func generatorIsPureAndDeterministic() {
        let generator = CorpusGenerator(seed: 11, documents: 1_000, users: 50)
        #expect(generator.recipe(at: 123) == generator.recipe(at: 123))
        #expect(generator.recipe(at: 123) == CorpusGenerator(seed: 11, documents: 1_000, users: 50).recipe(at: 123))
        #expect(generator.recipe(at: 123) != CorpusGenerator(seed: 12, documents: 1_000, users: 50).recipe(at: 123))
        #expect(generator.recipe(at: 123).id == "r000123")
        #expect(generator.user(at: 7) == generator.user(at: 7))
        #expect(generator.user(at: 7).id == "u00007")
        let titles = (0..<1_000).map { generator.recipe(at: $0).title }
        #expect(titles.contains("カレーライス") || titles.contains { $0.hasSuffix("カレーライス") })
        #expect(Set(titles).count > 50)
    }

    @Test func sameSeedGivesSameRows() async throws {
        func fingerprint(seed: UInt64) async throws -> String {
            try await CorpusFixture.withCorpus(documents: 500, users: 25, seed: seed) { path in
                try await CorpusFingerprint.compute(path: path)
            }
        }
        let first = try await fingerprint(seed: 3)
        let second = try await fingerprint(seed: 3)
        let other = try await fingerprint(seed: 4)
        #expect(first == second)
        #expect(first != other)
    }

    @Test func seedingReplacesAnExistingCorpus() async throws {
        let path = CorpusFixture.temporaryPath()
        defer { CorpusFixture.remove(path) }
        _ = try await CorpusWriter.seed(CorpusGenerator(seed: 1, documents: 300, users: 10), path: path)
        let summary = try await CorpusWriter.seed(CorpusGenerator(seed: 1, documents: 100, users: 10), path: path)
        #expect(summary == CorpusWriter.Summary(recipes: 100, users: 10))
        let fresh = try await CorpusFingerprint.compute(path: path)
        let expected = try await CorpusFixture.withCorpus(documents: 100, users: 10, seed: 1) { try await CorpusFingerprint.compute(path: $0) }
        #expect(fresh == expected)
    }

    @Test func progressCoversEveryRecipeAndUser() async throws {
        let path = CorpusFixture.temporaryPath()
        defer { CorpusFixture.remove(path) }
        let seen = ProgressLog()
        _ = try await CorpusWriter.seed(CorpusGenerator(seed: 1, documents: 4_500, users: 1_500), path: path, progress: seen.append)
        let log = seen.entries
        #expect(log.filter { $0.phase == .recipes }.map(\.done) == [2_000, 4_000, 4_500])
        #expect(log.filter { $0.phase == .users }.map(\.done) == [1_000, 1_500])
        #expect(log.last == CorpusWriter.Progress(phase: .indexing, done: 1, total: 1))
    }

    @Test func importReportsBadLinesWithTheirNumbers() throws {
        let parsed = CorpusImport.parse(try CorpusFixture.fixture("import.jsonl"))
        #expect(parsed.recipes.map(\.id) == ["x1", "x2", "x5"])
        #expect(parsed.badLines.map(\.line) == [3, 5, 6, 8])
        #expect(parsed.badLines[0].reason.contains("title"))
        #expect(parsed.badLines[3].reason.contains("duplicate"))
        let x2 = parsed.recipes[1]
        #expect(x2.ingredients == ["noodles", "cabbage", "pork"])
        #expect(x2.publishedAt == 1_760_000_000)
        #expect(parsed.recipes[0].publishedAt == 1_759_320_000)
        #expect(parsed.recipes[0].popularity == 77)
    }

    @Test func importedDocumentsAreSearchable() async throws {
        try await CorpusFixture.withCorpus(documents: 200, users: 10) { path in
            let parsed = CorpusImport.parse(try CorpusFixture.fixture("import.jsonl"))
            try await CorpusWriter.add(parsed.recipes, path: path)
            // Importing again replaces by id instead of duplicating.
            try await CorpusWriter.add(parsed.recipes, path: path)
            let source = SQLiteSearchSource(path: path)
            let crumble = try await source.search(SearchRequest(query: "crumble"))
            #expect(crumble.hits.map(\.id) == ["x1"])
            #expect(crumble.hits.first?.fields["author"] == "Greta Novak")
            let yakisoba = try await source.search(SearchRequest(query: "焼きそば"))
            #expect(yakisoba.hits.map(\.id) == ["x2"])
            let zucchini = try await source.search(SearchRequest(query: "zucchini"))
            try await source.shutdown()
            #expect(zucchini.total == 1)
        }
    }
}

/// Collects progress reports from the writer.
private final class ProgressLog: Sendable {
    private let log = Mutex<[CorpusWriter.Progress]>([])
    var entries: [CorpusWriter.Progress] { log.withLock { $0 } }
    func append(_ progress: CorpusWriter.Progress) { log.withLock { $0.append(progress) } }
}
