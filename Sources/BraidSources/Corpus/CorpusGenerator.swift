/// The deterministic demo corpus: the same seed, document count and user count always give
/// the same recipes and users, whatever the machine. Pure: no I/O, no clock, no global RNG.
///
/// Every recipe and user is derived from its own random stream (seed, kind, index), so any
/// slice can be generated independently and in any order (the writer streams batches).
public struct CorpusGenerator: Sendable {
    public let seed: UInt64
    public let documents: Int
    public let users: Int

    /// 2024-01-01T00:00:00Z: recipes are published over the two years after it, so a corpus
    /// does not depend on the day it was generated.
    public static let epoch: Int64 = 1_704_067_200
    static let publishingSpan: Int64 = 730 * 86_400

    public init(seed: UInt64 = 42, documents: Int, users: Int) {
        self.seed = seed
        self.documents = max(0, documents)
        self.users = max(1, users)
    }

    /// Users who publish recipes: the first fifth, so most users follow a few of them.
    public var authorCount: Int { max(1, users / 5) }

    public func recipe(at index: Int) -> CorpusRecipe {
        var random = SplitMix64(seed: seed, stream: 1, index: UInt64(index))
        let dish = CorpusVocabulary.dishes[CorpusVocabulary.dishTable.rank(random.nextUnit())]
        let japanese = FTSMatchExpression.containsCJK(dish.name)
        var title = dish.name
        if random.next(below: 100) < 60 {
            title = japanese
                ? CorpusVocabulary.japaneseQualifiers[CorpusVocabulary.japaneseQualifierTable.rank(random.nextUnit())] + dish.name
                : CorpusVocabulary.qualifiers[CorpusVocabulary.qualifierTable.rank(random.nextUnit())] + " " + dish.name
        }
        var ingredients = dish.ingredients
        for _ in 0..<random.next(below: 4) {
            let extra = CorpusVocabulary.extraIngredients[CorpusVocabulary.ingredientTable.rank(random.nextUnit())]
            if !ingredients.contains(extra) { ingredients.append(extra) }
        }
        // Skewed towards the first authors: a few prolific ones, a long tail.
        let authorIndex = Int(random.nextUnit() * random.nextUnit() * Double(authorCount))
        // Popularity follows a power law: most recipes have a handful of likes, a few thousands.
        let unit = random.nextUnit()
        let popularity = Int(unit * unit * unit * unit * 10_000)
        return CorpusRecipe(
            id: CorpusIDs.recipe(index), title: title, ingredients: ingredients, category: dish.category,
            authorID: CorpusIDs.user(authorIndex), author: userName(at: authorIndex),
            publishedAt: Self.epoch + Int64(random.next(below: Int(Self.publishingSpan))), popularity: popularity)
    }

    public func user(at index: Int) -> CorpusUser {
        var random = SplitMix64(seed: seed, stream: 2, index: UInt64(index))
        let id = CorpusIDs.user(index)
        var follows: [String] = []
        for _ in 0..<(1 + random.next(below: 8)) {
            let author = CorpusIDs.user(random.next(below: authorCount))
            if author != id, !follows.contains(author) { follows.append(author) }
        }
        var views: [CorpusUser.View] = []
        var cooksnaps: [CorpusUser.Cooksnap] = []
        if documents > 0 {
            let recent = Self.epoch + Self.publishingSpan
            for _ in 0..<(3 + random.next(below: 18)) {
                let recipeID = CorpusIDs.recipe(random.next(below: documents))
                if views.contains(where: { $0.recipeID == recipeID }) { continue }
                views.append(.init(recipeID: recipeID, viewedAt: recent + Int64(random.next(below: 30 * 86_400))))
            }
            for number in 0..<random.next(below: 9) {
                cooksnaps.append(.init(
                    id: "c" + CorpusIDs.padded(index, width: 5) + "-" + String(number),
                    recipeID: CorpusIDs.recipe(random.next(below: documents)),
                    createdAt: recent + Int64(random.next(below: 30 * 86_400)),
                    comment: CorpusVocabulary.cooksnapComments[random.next(below: CorpusVocabulary.cooksnapComments.count)]))
            }
        }
        return CorpusUser(id: id, name: userName(at: index), follows: follows, views: views, cooksnaps: cooksnaps)
    }

    func userName(at index: Int) -> String {
        let first = CorpusVocabulary.firstNames[index % CorpusVocabulary.firstNames.count]
        let last = CorpusVocabulary.lastNames[(index / CorpusVocabulary.firstNames.count) % CorpusVocabulary.lastNames.count]
        return first + " " + last
    }
}

/// SplitMix64: tiny, fast, and identical on every platform (unlike the system generator).
struct SplitMix64 {
    private var state: UInt64

    init(seed: UInt64, stream: UInt64, index: UInt64) {
        state = seed ^ (stream &* 0xD1B5_4A32_D192_ED03) ^ (index &* 0x9E37_79B9_7F4A_7C15)
        _ = next()
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Uniform in 0..<bound (bound > 0); the modulo bias is irrelevant for demo data.
    mutating func next(below bound: Int) -> Int {
        Int(next() % UInt64(max(bound, 1)))
    }

    /// Uniform in [0, 1).
    mutating func nextUnit() -> Double {
        Double(next() >> 11) / Double(UInt64(1) << 53)
    }
}
