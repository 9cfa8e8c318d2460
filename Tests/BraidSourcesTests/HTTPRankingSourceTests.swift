import BraidCore
import BraidSources
import BraidTestSupport
import Foundation
import Testing

@Suite("Generic HTTP ranking source")
struct HTTPRankingSourceTests {
    static let schema = RepositoryPaths.schemas.appendingPathComponent("ranking-source.schema.json")

    @Test func requestEncodingFollowsTheContract() throws {
        let data = try RankingServiceContract.encode(
            SearchRequest(query: " Ｃｕｒｒｙ  RICE ", excluding: ["r1", "r2"], from: 10, size: 5, profile: .popularityBoosted))
        #expect(String(decoding: data, as: UTF8.self)
            == #"{"excluding":["r1","r2"],"from":10,"profile":"popularity_boosted","query":"curry rice","size":5}"#)
    }

    @Test func responseDecodingFillsDefaults() throws {
        let result = try RankingServiceContract.decode(try CorpusFixture.fixture("ranking-service-response.json"))
        #expect(result.total == 57)
        #expect(result.hits.map(\.id) == ["r000042", "r000043", "r000044"])
        #expect(result.hits[0].score == 12.5)
        #expect(result.hits[0].fields["author"] == "Kenji Ito")
        #expect(result.hits[2].score == 0)
        #expect(result.hits[2].fields.isEmpty)
    }

    @Test func nullScoreAndFieldsMeanTheDefaults() throws {
        let result = try RankingServiceContract.decode(Data(#"{"total": 1, "hits": [{"id": "r1", "score": null, "fields": null}]}"#.utf8))
        #expect(result.hits == [SearchHit(id: "r1", score: 0, fields: [:])])
    }

    @Test func aMatchGenerationIsTheServicesPromiseTakenAsGiven() throws {
        let vouched = try RankingServiceContract.decode(Data(#"{"total": 0, "hits": [], "match_generation": "index-2026-11-25.3"}"#.utf8))
        #expect(vouched.matchGeneration == "index-2026-11-25.3")
        let silent = try RankingServiceContract.decode(Data(#"{"total": 0, "hits": [], "match_generation": null}"#.utf8))
        #expect(silent.matchGeneration == nil)
        #expect(try RankingServiceContract.decode(try CorpusFixture.fixture("ranking-service-response.json")).matchGeneration == nil)
    }

    @Test(arguments: [
        #"{"total": 0, "hits": [], "match_generation": 7}"#, #"{"total": 0, "hits": [], "match_generation": ""}"#,
        #"{"hits": []}"#, #"{"total": -1, "hits": []}"#, #"{"total": 1, "hits": [{"id": ""}]}"#, "[]",
        #"{"total": 1.5, "hits": []}"#, #"{"total": 1}"#, #"{"total": 1, "hits": [{"id": 7}]}"#, #"{"total": 1, "hits": [3]}"#,
        #"{"total": 1, "hits": [{"id": "r1", "score": "high"}]}"#, #"{"total": 1, "hits": [{"id": "r1", "fields": []}]}"#,
        #"{"total": 1, "hits": []"#,
    ])
    func responsesOutsideTheContractAreBadResponses(body: String) {
        let error = #expect(throws: SearchSourceError.self) { try RankingServiceContract.decode(Data(body.utf8)) }
        #expect(error?.code == .badResponse)
    }

    @Test func schemaAcceptsWhatBraidSendsAndExpects() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("braid-contract-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let request = folder.appendingPathComponent("request.json")
        try RankingServiceContract.encode(SearchRequest(query: "rice", excluding: ["r1"], profile: .newest)).write(to: request)
        let replay = folder.appendingPathComponent("replay.json")
        try RankingServiceContract.encode(SearchRequest(query: "rice", excluding: ["r1"], size: 22, needsTotal: false, ids: ["r4", "r2"])).write(to: replay)
        let response = folder.appendingPathComponent("response.json")
        try CorpusFixture.fixture("ranking-service-response.json").write(to: response)
        let vouched = folder.appendingPathComponent("vouched.json")
        try Data(#"{"total": 0, "hits": [], "match_generation": "g1"}"#.utf8).write(to: vouched)
        let invalid = folder.appendingPathComponent("invalid.json")
        try Data(#"{"total": 3, "hits": [{"score": 1}]}"#.utf8).write(to: invalid)
        let numericGeneration = folder.appendingPathComponent("numeric-generation.json")
        try Data(#"{"total": 0, "hits": [], "match_generation": 7}"#.utf8).write(to: numericGeneration)
        let verdicts = try JSONSchemaValidator.validate([request, replay, response, vouched, invalid, numericGeneration], against: Self.schema)
        #expect(verdicts[request] == .some(nil))
        #expect(verdicts[replay] == .some(nil))
        #expect(verdicts[response] == .some(nil))
        #expect(verdicts[vouched] == .some(nil))
        #expect(verdicts[invalid] != .some(nil))
        #expect(verdicts[numericGeneration] != .some(nil))
    }

    @Test func endToEndAgainstALocalService() async throws {
        let answer = try CorpusFixture.fixture("ranking-service-response.json")
        let server = try await TinyHTTPServer.start { request in
            request.uri == "/rank" ? .init(status: 200, body: answer) : .init(status: 404, body: Data("{}".utf8))
        }
        let source = HTTPRankingSource(url: server.baseURL + "/rank")
        let result = try await source.search(SearchRequest(query: "カレー", excluding: ["r7"], from: 0, size: 3, profile: .newest))
        let missing = HTTPRankingSource(url: server.baseURL + "/nowhere")
        let error = await #expect(throws: SearchSourceError.self) { try await missing.search(SearchRequest(query: "rice")) }
        try await server.stop()
        #expect(result.total == 57)
        #expect(result.hits.count == 3)
        #expect(error?.status == 404)
        let sent = try JSONDecoder().decode(RankingServiceContract.Request.self, from: try #require(server.requests.first).body)
        #expect(sent.query == "カレー")
        #expect(sent.excluding == ["r7"])
        #expect(sent.profile == "newest")
    }
}
