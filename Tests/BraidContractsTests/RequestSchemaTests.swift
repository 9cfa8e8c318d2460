import BraidContracts
import BraidCore
import BraidTestSupport
import Foundation
import Testing

/// `Schemas/request.schema.json` is the contract; the worker's decoder must agree with it on
/// every example: valid ones pass both, invalid ones fail both.
@Suite("request schema")
struct RequestSchemaTests {
    let schema = RepositoryPaths.schemas.appendingPathComponent("request.schema.json")

    @Test func validExamplesPassTheSchemaAndDecode() throws {
        let validExamples = try RepositoryPaths.jsonFiles(in: RepositoryPaths.schemas.appendingPathComponent("examples"))
            .filter { $0.lastPathComponent.hasPrefix("request-") }
        #expect(validExamples.count >= 4)
        let verdicts = try JSONSchemaValidator.validate(validExamples, against: schema)
        for example in validExamples {
            #expect(verdicts[example] == .some(nil), "\(example.lastPathComponent): \(String(describing: verdicts[example]))")
            let data = try Data(contentsOf: example)
            #expect(throws: Never.self, "\(example.lastPathComponent)") { try PrecomputeRequest.decode(data) }
        }
    }

    @Test func invalidExamplesFailTheSchemaAndTheDecoder() throws {
        let invalidExamples = try RepositoryPaths.jsonFiles(in: RepositoryPaths.schemas.appendingPathComponent("examples/invalid"))
        #expect(invalidExamples.count >= 10)
        let verdicts = try JSONSchemaValidator.validate(invalidExamples, against: schema)
        for example in invalidExamples {
            let verdict = verdicts[example] ?? nil
            #expect(verdict != nil, "\(example.lastPathComponent) passes the schema")
            let data = try Data(contentsOf: example)
            #expect(throws: RequestValidationError.self, "\(example.lastPathComponent) decodes") { try PrecomputeRequest.decode(data) }
        }
    }

    @Test func decodesTheDocumentedRankingExample() throws {
        let data = try Data(contentsOf: RepositoryPaths.schemas.appendingPathComponent("examples/request-ranking.json"))
        let request = try PrecomputeRequest.decode(data)
        #expect(request.id == "0b7c6a52-3d1e-4c1b-9a51-1f2f1e0b9c11")
        #expect(request.body == .ranking(.init(ranking: "featured", query: "curry rice", size: 50)))
        #expect(request.ttlSeconds == 86_400)
        #expect(request.requestedAt == Date(timeIntervalSince1970: 1_795_341_600))
    }

    @Test func encodedRequestsRoundTripAndPassTheSchema() throws {
        let requests = [
            PrecomputeRequest(body: .ranking(.init(ranking: "fresh", query: "ＣＵＲＲＹ　ライス", size: 7)), ttlSeconds: 600),
            PrecomputeRequest(body: .component(.init(feed: "home", type: .carousel, scope: .init(segment: "new-users")))),
        ]
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("braid-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var files: [URL] = []
        for (index, request) in requests.enumerated() {
            let data = request.encoded()
            let decoded = try PrecomputeRequest.decode(data)
            #expect(decoded.body == request.body)
            #expect(decoded.id == request.id)
            #expect(abs(decoded.requestedAt.timeIntervalSince(request.requestedAt)) < 0.001)
            let file = folder.appendingPathComponent("\(index).json")
            try data.write(to: file)
            files.append(file)
        }
        let verdicts = try JSONSchemaValidator.validate(files, against: schema)
        for file in files { #expect(verdicts[file] == .some(nil)) }
    }

    @Test(arguments: [
        (#"{"schema":"braid.request/v1","id":"0b7c6a52-3d1e-4c1b-9a51-1f2f1e0b9c11","kind":"ranking","ranking":{"id":"featured","query":"x","size":true},"requested_at":"2026-11-22T10:00:00Z"}"#, "ranking.size: must be an integer"),
        (#"{"schema":"braid.request/v1","id":"0b7c6a52-3d1e-4c1b-9a51-1f2f1e0b9c11","kind":"ranking","ranking":{"id":"featured","query":"x","size":2.5},"requested_at":"2026-11-22T10:00:00Z"}"#, "ranking.size: must be an integer"),
        (#"{"schema":"braid.request/v1","id":"0b7c6a52-3d1e-4c1b-9a51-1f2f1e0b9c11","kind":"ranking","ranking":{"id":"featured"},"requested_at":"2026-11-22T10:00:00Z"}"#, "ranking.query: missing"),
        ("{not json", "not valid JSON"),
        ("", "not valid JSON"),
    ])
    func reasonsNameTheField(message: String, reason: String) {
        #expect(throws: RequestValidationError(reason)) { try PrecomputeRequest.decode(Data(message.utf8)) }
    }

    @Test func acceptsIntegralSizesAndRejectsHugeMessages() throws {
        let ok = #"{"schema":"braid.request/v1","id":"0b7c6a52-3d1e-4c1b-9a51-1f2f1e0b9c11","kind":"ranking","ranking":{"id":"featured","query":"x","size":1},"requested_at":"2026-11-22T10:00:00Z"}"#
        #expect(try PrecomputeRequest.decode(Data(ok.utf8)).body == .ranking(.init(ranking: "featured", query: "x", size: 1)))
        let huge = Data(repeating: 0x20, count: PrecomputeRequest.Limits.maxMessageBytes + 1)
        #expect(throws: RequestValidationError.self) { try PrecomputeRequest.decode(huge) }
    }
}
