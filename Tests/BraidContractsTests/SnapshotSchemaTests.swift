import BraidContracts
import BraidCore
import BraidTestSupport
import Foundation
import Testing

/// `Schemas/snapshot.schema.json` against ``RankingSnapshot``: what workers write conforms, with
/// or without a match generation, and a wrongly typed one fails both the schema and the reader.
@Suite("snapshot schema")
struct SnapshotSchemaTests {
    let schema = RepositoryPaths.schemas.appendingPathComponent("snapshot.schema.json")

    @Test func writtenSnapshotsConformAndAWrongGenerationFailsBoth() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("braid-snapshots-\(UInt64.random(in: 0...UInt64.max))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }

        var snapshot = RankingSnapshot(
            ranking: "featured", query: "curry rice", version: 1_795_000_000_123, createdAt: Date(timeIntervalSince1970: 1_795_000_000),
            requestID: "req-1", documents: [
                .init(id: "r1", score: 3.5, fields: ["title": .string("Curry rice")]),
                .init(id: "r2", score: 1, fields: [:]),
            ])
        var files: [URL] = []
        for generation in [nil, "fts5-1:9f86d081884c7d65"] {
            snapshot.matchGeneration = generation
            let file = folder.appendingPathComponent("snapshot-\(files.count).json")
            try snapshot.encoded().write(to: file)
            files.append(file)
        }
        guard case .object(var members) = try JSONValue.parse(try snapshot.encoded()) else {
            Issue.record("a snapshot is not written as an object")
            return
        }
        members["match_generation"] = .number(1)
        let wrong = folder.appendingPathComponent("wrong-generation.json")
        try JSONEncoder().encode(JSONValue.object(members)).write(to: wrong)

        let verdicts = try JSONSchemaValidator.validate(files + [wrong], against: schema)
        for file in files {
            #expect(verdicts[file] == .some(nil), "\(file.lastPathComponent): \(String(describing: verdicts[file]))")
        }
        #expect((verdicts[wrong] ?? nil) != nil, "a numeric match_generation passes the schema")
        #expect(throws: StoredValueShapeError.self) { try RankingSnapshot.decode(Data(contentsOf: wrong)) }
    }
}
