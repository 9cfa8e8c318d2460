@testable import BraidSources
import Testing

/// The demo corpus's words are long-tailed: head, torso and tail queries exist, and the demo's
/// queries find what they say.
@Suite("Corpus vocabulary")
struct CorpusVocabularyTests {
    /// Share of `recipes` whose title or ingredients hold `word` (case-insensitive substring).
    static func share(_ word: String, in recipes: [CorpusRecipe]) -> Double {
        let hits = recipes.filter { ($0.title + " " + $0.ingredients.joined(separator: " ")).lowercased().contains(word) }
        return Double(hits.count) / Double(recipes.count)
    }

    @Test func zipfTablesDrawTheFirstRanksMostAndEveryRankSometimes() {
        let table = ZipfTable(count: 100, exponent: 1)
        #expect(table.rank(0) == 0 && table.rank(0.999_999) == 99)
        #expect(abs(table.probability(of: 0) / table.probability(of: 9) - 10) < 1e-9)
        #expect(abs((0..<100).map(table.probability(of:)).reduce(0, +) - 1) < 1e-9)
        var counts = [Int](repeating: 0, count: 100)
        for step in 0..<100_000 { counts[table.rank((Double(step) + 0.5) / 100_000)] += 1 }
        #expect(counts[0] > 19_000 && counts[0] < 20_000)
        #expect(counts.allSatisfy { $0 > 0 })
    }

    @Test func aCorpusHasHeadTorsoAndTailWords() {
        let generator = CorpusGenerator(seed: 42, documents: 20_000, users: 10)
        let recipes = (0..<20_000).map(generator.recipe(at:))
        for head in ["curry", "egg", "rice"] { #expect(Self.share(head, in: recipes) > 0.2, "\(head)") }
        for torso in ["lasagna", "tahini", "tiramisu"] {
            let share = Self.share(torso, in: recipes)
            #expect(share > 0.002 && share < 0.02, "\(torso): \(share)")
        }
        for tail in ["haggis", "mashua", "bobotie", "gravlax"] {
            let share = Self.share(tail, in: recipes)
            #expect(share > 0 && share < 0.003, "\(tail): \(share)")
        }
        // The demo's queries: their dishes lead, and カレー finds a good share.
        let titles = recipes.map(\.title)
        #expect(titles.filter { $0.hasSuffix("Curry Rice") }.count > 2_000)
        #expect(titles.filter { $0.contains("カレー") }.count > 1_500)
        for dish in ["Chicken Curry", "Miso Soup", "Tomato Pasta", "Chocolate Cake"] {
            #expect(titles.filter { $0.hasSuffix(dish) }.count > 300, "\(dish)")
        }
        #expect(Set(recipes.map(\.category)) == ["main", "soup", "salad", "breakfast", "dessert", "side", "drink", "snack"])
    }
}
