import BraidContracts
import BraidCore
import Testing

@Suite("query normalisation and keys")
struct KeysTests {
    @Test func fullWidthJapaneseAndLatinNormaliseAlike() {
        #expect(QueryNormalizer.normalize("ＣＵＲＲＹ　ライス") == "curry ライス")
        #expect(QueryNormalizer.normalize("ＣＵＲＲＹ　ライス") == QueryNormalizer.normalize("curry ライス"))
        // Half-width katakana is NFKC-mapped to full width.
        #expect(QueryNormalizer.normalize("ｶﾚｰ") == QueryNormalizer.normalize("カレー"))
    }

    @Test func whitespaceIsCollapsedAndTrimmedAndCaseFolded() {
        #expect(QueryNormalizer.normalize("  Curry\t\n  RICE  ") == "curry rice")
        #expect(QueryNormalizer.normalize("STRASSE") == QueryNormalizer.normalize("strasse"))
        #expect(QueryNormalizer.normalize("   ") == "")
    }

    @Test func punctuationAndSymbolsSeparateWordsSoTheyMintNoNewSnapshot() {
        #expect(QueryNormalizer.normalize("curry!") == "curry")
        #expect(QueryNormalizer.normalize("curry!!") == QueryNormalizer.normalize("curry"))
        #expect(QueryNormalizer.normalize("¿Curry, rice?") == "curry rice")
        #expect(QueryNormalizer.normalize("curry-rice") == "curry rice")
        #expect(QueryNormalizer.normalize("c++ & $5 🍛 curry") == "c 5 curry")
        #expect(QueryNormalizer.normalize("!!!") == "")
        // Keys follow: every spelling with punctuation reads the one snapshot of the words.
        let keys = CacheKeys(prefix: "braid")
        #expect(keys.ranking("featured", query: "curry!!!").pointer == keys.ranking("featured", query: "curry").pointer)
    }

    @Test func cjkTextKeepsItsLettersAndLosesItsPunctuation() {
        #expect(QueryNormalizer.normalize("カレー・ライス。") == "カレー ライス")
        #expect(QueryNormalizer.normalize("「麻婆豆腐」、辛い！") == "麻婆豆腐 辛い")
        #expect(QueryNormalizer.normalize("咖喱饭") == "咖喱饭")
        #expect(QueryNormalizer.normalize("김치 찌개!") == "김치 찌개")
        // Digits and combining marks stay (NFKC composes é first).
        #expect(QueryNormalizer.normalize("Crème brûlée 2") == "crème brûlée 2")
    }

    @Test func rankingKeysShareOneHashTagAndDependOnTheNormalisedQuery() {
        let keys = CacheKeys(prefix: "braid")
        let a = keys.ranking("featured", query: "ＣＵＲＲＹ　ライス")
        let b = keys.ranking("featured", query: "curry  ライス")
        #expect(a == b)
        #expect(a.pointer.hasPrefix("braid:{rank:featured:"))
        #expect(a.pointer.hasSuffix("}:cur"))
        #expect(a.version(7).hasSuffix("}:v:7"))
        func tag(_ key: String) -> Substring { key[key.firstIndex(of: "{")!...key.firstIndex(of: "}")!] }
        #expect(tag(a.pointer) == tag(a.version(7)))
        #expect(tag(a.pointer) == tag(a.refreshMarker))
        #expect(keys.ranking("fresh", query: "curry") != keys.ranking("featured", query: "curry"))
        #expect(keys.ranking("featured", query: "curry rice") != keys.ranking("featured", query: "curry"))
        #expect(!a.pointer.contains("curry"), "user text must not leak into keys")
    }

    @Test func componentKeysDependOnFeedTypeAndScope() {
        let keys = CacheKeys(prefix: "p")
        let home = keys.component(feed: "home", type: .recommendedRecipes, scope: .init(user: "u1"))
        #expect(home.hasPrefix("p:{comp:home:recommended_recipes:"))
        #expect(home != keys.component(feed: "home", type: .recommendedRecipes, scope: .init(user: "u2")))
        #expect(home != keys.component(feed: "home", type: .carousel, scope: .init(user: "u1")))
        #expect(keys.experiment("exp1").counters == "p:{exp:exp1}:counters")
    }

    @Test("Walk records and impression states are recognised as retained records, and no other key of Braid's")
    func retainedRecordsAreRecognisedByTheirKeys() {
        let keys = CacheKeys(prefix: "b:x")
        let experiment = keys.experiment("layout-1")
        let state = experiment.impression("AbC_9-z")
        let clicks = experiment.clickedPositions("AbC_9-z")
        #expect(keys.retainedRecord(keys.walk(42)) == .walk(keys.walk(42)))
        #expect(keys.retainedRecord(state) == .impression(state: state, clicks: clicks))
        #expect(keys.retainedRecord(clicks) == .impression(state: state, clicks: clicks), "the clicked set names its state's record")
        #expect(CacheKeys.RetainedRecord.impression(state: state, clicks: clicks).keys == [state, clicks])
        let ranking = keys.ranking("featured", query: "curry")
        for other in [
            experiment.counters, experiment.history, experiment.layoutUsers("a"), experiment.layoutSessions("a"), ranking.pointer,
            ranking.version(3), ranking.lease, keys.component(feed: "home", type: .carousel, scope: .init(user: "u")),
            keys.rateBucket(kind: "identity", caller: "u"), keys.admissionSketch(period: 3), keys.retentionLease,
            CacheKeys(prefix: "b").walk(42), "b:x:{walk:}", "b:x:{walk:1}:more", "b:x:{exp:e}:imp:", "b:x:{exp:e}:imp:a:b",
        ] {
            #expect(keys.retainedRecord(other) == nil, "\(other)")
        }
    }
}
