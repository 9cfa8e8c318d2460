import BraidContracts
import BraidCore
import BraidFaults
import BraidKafka
import BraidRedis
import BraidTestSupport
import BraidPrecompute
import BraidWorker
import Foundation
import Testing

/// `braid worker` processes in one consumer group, against the real broker and Redis.
@Suite("worker group end to end", .serialized, .integration)
struct WorkerGroupTests {
    /// 20 messages no worker can process: the schema's invalid examples plus hostile ones.
    static func invalidPayloads() throws -> [[UInt8]] {
        var payloads = try RepositoryPaths.jsonFiles(in: RepositoryPaths.schemas.appendingPathComponent("examples/invalid"))
            .map { Array(try Data(contentsOf: $0)) }
        payloads += [
            Array("not json at all".utf8), [], [0xff, 0xfe, 0x00, 0x01], Array("[1,2,3]".utf8),
            Array(("{\"schema\":\"braid.request/v1\",\"pad\":\"" + String(repeating: "x", count: 70_000) + "\"}").utf8),
            Array(#"{"schema":"braid.request/v1","id":"00000000-0000-4000-8000-000000000001","kind":"ranking","ranking":{"id":"no_such_ranking","query":"curry"},"requested_at":"2026-11-22T10:00:00Z"}"#.utf8),
            Array(#"{"schema":"braid.request/v1","id":"00000000-0000-4000-8000-000000000002","kind":"component","component":{"feed":"no_such_feed","type":"carousel","scope":{"user":"u1"}},"requested_at":"2026-11-22T10:00:00Z"}"#.utf8),
        ]
        payloads += (0..<(20 - payloads.count)).map { Array("{\"broken\": \($0)".utf8) }
        return payloads
    }

    /// The `worker-kill` fault scenario (`make faults`) at the same scale, with more: 1,980
    /// requests and 20 messages no worker can process, 3 workers joined one after the other, the last
    /// one SIGKILLed once 200 snapshots exist and the first one stopped with SIGTERM right
    /// after, while work remains. On the redis-server, and on the Redis Cluster (the workers
    /// get `redis.cluster_nodes`).
    @Test(arguments: [FixtureRedis.standalone, .cluster])
    func everyRequestIsMaterializedAndEveryInvalidOneDeadLetteredDespiteAKillAndAStop(redis: FixtureRedis) async throws {
        let invalid = try Self.invalidPayloads()
        #expect(invalid.count == 20)
        // Joins 1 s after the previous worker's assignment (not 4 s): never in the same instant.
        let scenario = WorkerKill(
            requests: 1_980, killAt: 200, spacing: .seconds(1), deadline: .seconds(120), invalid: invalid, stopOneGracefully: true)
        let outcome = try await scenario.perform(on: try await FaultStack.integrationTier(redis: redis))
        let result = scenario.result(of: outcome)
        #expect(result.passed, "\(result.printed(scenario: scenario.name).joined(separator: "\n"))")
        #expect(outcome.snapshotsWhenKilled < scenario.requests, "the SIGKILL came after the work was done")
        #expect(outcome.snapshots == scenario.requests)
        #expect(outcome.gracefulExits.count == 2)
        #expect(outcome.gracefulExits.allSatisfy { $0.flatMap(ChildProcess.exitCode) == 0 }, "a worker stopped with SIGTERM exits 0")

        // Counts only: the messages themselves are megabytes of output. One letter per invalid
        // message; a second copy only of the same source message (a worker killed between
        // publishing a letter and writing its marker: at least once, as the README says).
        let letters = outcome.deadLetters
        let sources = letters.map { String(decoding: $0.header(DeadLetterHeader.source) ?? [], as: UTF8.self) }
        let distinctSources = Set(sources).count
        #expect(distinctSources == invalid.count, "source messages in the dead-letter topic")
        #expect(letters.count - distinctSources <= 1, "\(letters.count - distinctSources) duplicate letters; one worker was killed once")
        let unexpected = Set(letters.map(\.value)).symmetricDifference(Set(invalid))
        let unexpectedCount = unexpected.count
        #expect(unexpectedCount == 0, "dead letters that are not, or invalid payloads that are not, in the dead-letter topic")
        #expect(letters.allSatisfy { ($0.header(DeadLetterHeader.reason) ?? []).isEmpty == false })
    }

    static func isMaterialized(_ request: PrecomputeRequest, in store: PrecomputeStore) async throws -> Bool {
        let version = RankingSnapshot.version(for: request.requestedAt)
        switch request.body {
        case .ranking(let target):
            return try await store.currentVersion(ranking: target.ranking, query: target.query) == version
        case .component(let target):
            return try await store.component(feed: target.feed, type: target.type, scope: target.scope)?.version == version
        }
    }
}
