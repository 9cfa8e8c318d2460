import BraidCore
import BraidSources
import BraidTestSupport
import Foundation
import NIOCore
import Testing

@Suite("Elasticsearch/OpenSearch source")
struct ElasticsearchSourceTests {
    static let matchAll: JSONValue = .object(["multi_match": .object([
        "query": "curry rice", "fields": .array(["title^3", "ingredients"]), "operator": "and",
    ])])
    static let tie: JSONValue = .object(["id": .object(["order": "asc", "unmapped_type": "keyword"])])

    @Test func relevanceBodyExcludesIdsAndTracksTotals() {
        let body = ElasticsearchQuery().body(for: SearchRequest(query: "curry rice", excluding: ["r1", "r2"], from: 20, size: 10))
        let expected: JSONValue = .object([
            "from": 20, "size": 10, "track_total_hits": true,
            "query": .object(["bool": .object([
                "must": .array([Self.matchAll]),
                "must_not": .array([.object(["ids": .object(["values": .array(["r1", "r2"])])])]),
            ])]),
            "sort": .array(["_score", Self.tie]),
        ])
        #expect(body == expected)
    }

    @Test func popularityBoostedWrapsTheQueryInAFunctionScore() {
        let body = ElasticsearchQuery().body(for: SearchRequest(query: "curry rice", size: 5, profile: .popularityBoosted))
        let expected: JSONValue = .object([
            "function_score": .object([
                "query": .object(["bool": .object(["must": .array([Self.matchAll])])]),
                "field_value_factor": .object(["field": "popularity", "modifier": "log1p", "missing": 0]),
                "boost_mode": "sum",
            ])
        ])
        #expect(body["query"] == expected)
        #expect(body["query"]?["function_score"]?["query"]?["bool"]?["must_not"] == nil)
    }

    @Test func newestSortsByPublicationDate() {
        let body = ElasticsearchQuery().body(for: SearchRequest(query: "curry rice", size: 5, profile: .newest))
        #expect(body["sort"] == .array([.object(["published_at": .object(["order": "desc", "unmapped_type": "date"])]), Self.tie]))
    }

    @Test func parsesTotalAsObject() throws {
        let result = try ElasticsearchResponse.parse(try CorpusFixture.fixture("es-total-object.json"))
        #expect(result.total == 42)
        #expect(result.hits.map(\.id) == ["r000017", "r000204", "r000999"])
        #expect(result.hits[0].score == 7.231)
        #expect(result.hits[0].fields["title"] == "Quick Curry Rice")
        #expect(result.hits[0].fields["ingredients"] == .array(["rice", "curry roux"]))
        #expect(result.hits[2].fields["title"] == "カレーライス")
    }

    @Test func parsesTotalAsInteger() throws {
        let result = try ElasticsearchResponse.parse(try CorpusFixture.fixture("es-total-int.json"))
        #expect(result.total == 7)
        #expect(result.hits.map(\.id) == ["r000001", "r000002"])
        #expect(result.hits[1].fields == ["title": "Easy Miso Soup"])
    }

    @Test func sortedHitsWithoutSourceUseSortValues() throws {
        let result = try ElasticsearchResponse.parse(try CorpusFixture.fixture("es-sorted-missing-source.json"))
        #expect(result.total == 10_000)
        #expect(result.hits.map(\.score) == [1_767_052_800_000, 1_767_000_000_000])
        #expect(result.hits[1].fields.isEmpty)
    }

    @Test(arguments: [
        "not json", #"{"took": 1}"#, #"{"hits": {"hits": []}}"#, #"{"hits": {"total": {"relation": "eq"}, "hits": []}}"#,
        #"{"hits": {"total": 1, "hits": [{"_score": 1}]}}"#,
    ])
    func malformedResponsesAreBadResponses(body: String) {
        let error = #expect(throws: SearchSourceError.self) { try ElasticsearchResponse.parse(Data(body.utf8)) }
        #expect(error?.code == .badResponse)
    }

    @Test func postsTheBodyToTheIndexAndParsesTheAnswer() async throws {
        let answer = try CorpusFixture.fixture("es-total-object.json")
        let server = try await TinyHTTPServer.start { _ in .init(status: 200, body: answer) }
        let source = ElasticsearchSource(baseURL: server.baseURL + "/", index: "recipes")
        let request = SearchRequest(query: "ＣＵＲＲＹ  Rice", excluding: ["r1"], from: 0, size: 3)
        let result = try await source.search(request)
        try await server.stop()
        #expect(result.total == 42)
        let received = try #require(server.requests.first)
        #expect(received.method == "POST")
        #expect(received.uri == "/recipes/_search")
        var normalized = request
        normalized.query = "curry rice"
        #expect(try JSONDecoder().decode(JSONValue.self, from: received.body) == ElasticsearchQuery().body(for: normalized))
    }

    @Test func errorStatusIsABadResponse() async throws {
        let answer = try CorpusFixture.fixture("es-error-400.json")
        let server = try await TinyHTTPServer.start { _ in .init(status: 400, body: answer) }
        let source = ElasticsearchSource(baseURL: server.baseURL, index: "recipes")
        let error = await #expect(throws: SearchSourceError.self) { try await source.search(SearchRequest(query: "rice")) }
        try await server.stop()
        #expect(error?.code == .badResponse)
        #expect(error?.status == 400)
        #expect(error?.message.contains("all shards failed") == true)
        #expect(error?.isRetriable == false)
    }

    @Test func silentBackendIsATimeout() async throws {
        let server = try await TinyHTTPServer.start { _ in nil }
        let source = ElasticsearchSource(baseURL: server.baseURL, index: "recipes", timeout: .milliseconds(300))
        let error = await #expect(throws: SearchSourceError.self) { try await source.search(SearchRequest(query: "rice")) }
        try await server.stop()
        #expect(error?.code == .timeout)
    }

    @Test func refusedConnectionIsUnavailable() async throws {
        // A port that was just free: nothing listens there, so the connection is refused.
        // AsyncHTTPClient retries connecting until the deadline and then reports either the
        // refusal or the deadline, whichever its retry loop sees last (it varies with load);
        // both are retriable and both answer 503 at the gateway.
        let server = try await TinyHTTPServer.start { _ in nil }
        let url = server.baseURL
        try await server.stop()
        let source = ElasticsearchSource(baseURL: url, index: "recipes", timeout: .seconds(1))
        let error = await #expect(throws: SearchSourceError.self) { try await source.search(SearchRequest(query: "rice")) }
        #expect(error?.code == .unavailable || error?.code == .timeout, "\(String(describing: error))")
        #expect(error?.isRetriable == true)
    }

    /// The one conditional test of the suite: it needs a real Elasticsearch or OpenSearch that
    /// `make test` does not start, so it runs only when BRAID_ES_URL points at one (with an
    /// index named by BRAID_ES_INDEX, default `recipes`, holding recipe documents).
    @Test(.enabled(if: ProcessInfo.processInfo.environment["BRAID_ES_URL"] != nil, "set BRAID_ES_URL to run against a live cluster"))
    func liveCluster() async throws {
        let environment = ProcessInfo.processInfo.environment
        let source = ElasticsearchSource(
            baseURL: try #require(environment["BRAID_ES_URL"]), index: environment["BRAID_ES_INDEX"] ?? "recipes",
            timeout: .seconds(5))
        let first = try await source.search(SearchRequest(query: "rice", size: 5))
        #expect(first.total >= first.hits.count)
        let excluded = first.hits.prefix(2).map(\.id)
        let rest = try await source.search(SearchRequest(query: "rice", excluding: excluded, size: 5))
        #expect(rest.total == first.total - excluded.count)
        #expect(rest.hits.allSatisfy { !excluded.contains($0.id) })
    }
}
