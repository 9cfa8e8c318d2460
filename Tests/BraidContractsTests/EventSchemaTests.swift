import BraidContracts
import BraidCore
import BraidTestSupport
import Foundation
import Testing

/// `Schemas/event.schema.json` against ``ExperimentEvent``: the schema's examples pass or fail
/// both, and what the gateway builds from impression ids conforms.
@Suite("event schema")
struct EventSchemaTests {
    let schema = RepositoryPaths.schemas.appendingPathComponent("event.schema.json")

    @Test func validExamplesPassTheSchemaAndDecode() throws {
        let examples = try RepositoryPaths.jsonFiles(in: RepositoryPaths.schemas.appendingPathComponent("examples"))
            .filter { $0.lastPathComponent.hasPrefix("event-") }
        #expect(examples.count >= 4)
        let verdicts = try JSONSchemaValidator.validate(examples, against: schema)
        for example in examples {
            #expect(verdicts[example] == .some(nil), "\(example.lastPathComponent): \(String(describing: verdicts[example]))")
            #expect(throws: Never.self, "\(example.lastPathComponent)") { try ExperimentEvent.decode(Data(contentsOf: example)) }
        }
        let old = try ExperimentEvent.decode(Data(contentsOf: RepositoryPaths.schemas.appendingPathComponent("examples/event-click-before-multileaving.json")))
        #expect(old.isCredited && old.teams == nil && old.teamIndex == nil)
    }

    @Test func invalidExamplesFailTheSchemaAndTheDecoder() throws {
        let examples = try RepositoryPaths.jsonFiles(in: RepositoryPaths.schemas.appendingPathComponent("examples/invalid-event"))
        #expect(examples.count >= 6)
        let verdicts = try JSONSchemaValidator.validate(examples, against: schema)
        for example in examples {
            #expect((verdicts[example] ?? nil) != nil, "\(example.lastPathComponent) passes the schema")
            #expect(throws: RequestValidationError.self, "\(example.lastPathComponent) decodes") {
                try ExperimentEvent.decode(Data(contentsOf: example))
            }
        }
    }

    @Test func eventsMadeFromImpressionIdsConformAndMarkEvidence() throws {
        let at = Date(timeIntervalSince1970: 1_795_000_000)
        // Version 3: the events carry the id's issue time and user key, which the schema checks too.
        let token = ImpressionToken(
            experiment: "multi", offset: 10, slotTeams: [0, 0, 2, 1, 0, 3], teamCount: 4, creditWindow: 12..<16, nonce: 0xBEEF,
            issuedAt: 1_794_999_990, userKey: ImpressionCodec(key: Array("k".utf8)).userKey(user: "u00001", session: nil))
        let impression = try #require(ExperimentEvent.make(.impression, token: token, receivedAt: at))
        #expect(impression.teams == 4 && impression.isCredited && impression.position == nil)
        #expect(impression.offset == 10 && impression.slots == 6, "the page's layout, for the planner")
        let inWindow = try #require(ExperimentEvent.make(.click, token: token, position: 13, receivedAt: at))
        #expect(inWindow.teamIndex == 1 && inWindow.team == .b && inWindow.isCredited)
        let onTop = try #require(ExperimentEvent.make(.click, token: token, position: 10, receivedAt: at))
        #expect(onTop.teamIndex == 0 && onTop.team == .a && !onTop.isCredited)
        #expect(ExperimentEvent.make(.click, token: token, position: 16) == nil)
        #expect(ExperimentEvent.make(.click, token: token) == nil)
        // A page past the window compares nothing: its impression is not counted.
        let past = ImpressionToken(experiment: "multi", offset: 40, slotTeams: [0, 0], teamCount: 4, creditWindow: 12..<16, nonce: 1)
        #expect(ExperimentEvent.make(.impression, token: past)?.isCredited == false)

        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("braid-events-\(UInt64.random(in: 0...UInt64.max))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        var files: [URL] = []
        for (index, event) in [impression, inWindow, onTop].enumerated() {
            let file = folder.appendingPathComponent("\(index).json")
            try event.encoded().write(to: file)
            files.append(file)
            #expect(try ExperimentEvent.decode(event.encoded()) == event)
        }
        for (file, verdict) in try JSONSchemaValidator.validate(files, against: schema) {
            #expect(verdict == nil, "\(file.lastPathComponent): \(verdict ?? "")")
        }
    }

    @Test func decoderChecksWhatTheSchemaCannot() throws {
        func click(_ fields: String) -> Data {
            Data(#"{"schema":"braid.event/v1","type":"click","experiment":"e","impression":"ab","position":1,\#(fields),"received_at":"2026-11-22T10:00:00Z"}"#.utf8)
        }
        #expect(throws: Never.self) { try ExperimentEvent.decode(click(#""team":"B","team_index":3,"teams":4"#)) }
        #expect(throws: RequestValidationError.self) { try ExperimentEvent.decode(click(#""team":"B","team_index":3,"teams":3"#)) }
        #expect(throws: RequestValidationError.self) { try ExperimentEvent.decode(click(#""team":"B","team_index":2"#)) }
        #expect(throws: RequestValidationError.self) { try ExperimentEvent.decode(click(#""team":"A","team_index":1"#)) }
        #expect(throws: RequestValidationError.self) { try ExperimentEvent.decode(click(#""team":"B","team_index":0"#)) }
    }
}
