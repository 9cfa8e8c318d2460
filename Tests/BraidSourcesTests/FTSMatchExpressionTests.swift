import BraidSources
import Testing

@Suite("FTS5 MATCH expressions from user text")
struct FTSMatchExpressionTests {
    @Test func wordsBecomeQuotedPrefixPhrases() {
        let match = FTSMatchExpression.build("Curry  RICE")
        #expect(match == FTSMatchExpression(table: .words, expression: #""curry"* "rice"*"#))
    }

    @Test func syntaxCharactersOnlySeparateTokens() {
        #expect(FTSMatchExpression.build(#"NEAR(curry, "rice*) OR -beef"#)?.expression == #""near"* "curry"* "rice"* "or" "beef"*"#)
        #expect(FTSMatchExpression.build(#""*-():^{}"#) == nil)
        #expect(FTSMatchExpression.build("") == nil)
    }

    @Test func cjkUsesTheTrigramTable() {
        #expect(FTSMatchExpression.build("カレー") == FTSMatchExpression(table: .trigram, expression: #""カレー""#))
        // Tokens shorter than a trigram are left out there…
        #expect(FTSMatchExpression.build("卵 カレー") == FTSMatchExpression(table: .trigram, expression: #""カレー""#))
        // …and a query of only short CJK tokens uses prefix matching.
        #expect(FTSMatchExpression.build("親子") == FTSMatchExpression(table: .words, expression: #""親子"*"#))
    }

    /// One- and two-letter tokens are whole words, longer ones prefixes: as a prefix, `c*`
    /// would match nearly every recipe. Full words of three letters or more are prefix queries.
    @Test func onlyTokensOfThreeOrMoreCharactersArePrefixes() {
        #expect(FTSMatchExpression.build("c") == FTSMatchExpression(table: .words, expression: #""c""#))
        #expect(FTSMatchExpression.build("a curry ox") == FTSMatchExpression(table: .words, expression: #""a" "curry"* "ox""#))
        #expect(FTSMatchExpression.build("cur") == FTSMatchExpression(table: .words, expression: #""cur"*"#))
        #expect(FTSMatchExpression.build("é") == FTSMatchExpression(table: .words, expression: #""é""#))
        // Short CJK tokens stay prefixes: CJK words are whole runs of text in the words table.
        #expect(FTSMatchExpression.build("親 ox") == FTSMatchExpression(table: .words, expression: #""親"* "ox""#))
    }

    @Test func shortWordsAndManyWordsMakeABroadQuery() {
        for query in ["c", "ch", "c rice", "curry of rice", "a b c d e", "one two three four five"] {
            #expect(FTSMatchExpression.isBroad(query), "\(query)")
        }
        for query in ["curry", "curry rice", "miso soup!", "one two three four", "カレー", "親子", "chicken, rice"] {
            #expect(!FTSMatchExpression.isBroad(query), "\(query)")
        }
    }

    @Test func longInputIsBounded() throws {
        let many = (0..<100).map { "w\($0)" }.joined(separator: " ")
        let match = try #require(FTSMatchExpression.build(many))
        #expect(match.expression.split(separator: " ").count == FTSMatchExpression.maxTokens)
        let long = try #require(FTSMatchExpression.build(String(repeating: "a", count: 10_000)))
        #expect(long.expression == "\"" + String(repeating: "a", count: FTSMatchExpression.maxTokenLength) + "\"*")
    }
}
