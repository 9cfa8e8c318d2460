import BraidCore
@testable import BraidGateway
import Foundation
import Testing

/// The console's pure parts: rates from lag readings, the snapshot census, arm sessions, tokens,
/// its script files.
@Suite("Console logic")
struct ConsoleLogicTests {
    func lag(_ partition: Int32, committed: Int64?, high: Int64) -> WorkerStatus.PartitionLag {
        WorkerStatus.PartitionLag(partition: partition, committed: committed, highWatermark: high, lag: high - (committed ?? 0))
    }

    @Test("Consumed and produced rates per partition between two readings")
    func lagRates() {
        let first = LagRates.Reading(at: 100, partitions: [lag(0, committed: 10, high: 50), lag(1, committed: nil, high: 5)])
        let second = LagRates.Reading(at: 102, partitions: [lag(0, committed: 30, high: 54), lag(1, committed: 4, high: 9), lag(2, committed: 0, high: 0)])
        let initial = LagRates.apply(previous: nil, current: first)
        #expect(initial.allSatisfy { $0.consumedPerSecond == nil && $0.producedPerSecond == nil })
        let rated = LagRates.apply(previous: first, current: second)
        #expect(rated[0].consumedPerSecond == 10)
        #expect(rated[0].producedPerSecond == 2)
        #expect(rated[1].consumedPerSecond == nil, "not committed before: no rate")
        #expect(rated[1].producedPerSecond == 2)
        #expect(rated[2].consumedPerSecond == nil && rated[2].producedPerSecond == nil, "a new partition has no previous reading")
    }

    @Test("The census names the ranking of a pointer key and summarises ages against refresh ages")
    func census() {
        #expect(SnapshotCensus.ranking(ofPointer: "braid:{rank:featured:ab12}:cur", prefix: "braid") == "featured")
        #expect(SnapshotCensus.ranking(ofPointer: "braid:{rank:featured:ab12}:v:1", prefix: "braid") == nil)
        #expect(SnapshotCensus.ranking(ofPointer: "other:{rank:featured:ab12}:cur", prefix: "braid") == nil)
        let now = Date(timeIntervalSince1970: 10_000)
        let versions: [(ranking: String, version: Int64)] = [("featured", 9_990_000), ("featured", 5_000_000), ("legacy", 9_999_000)]
        let summary = SnapshotCensus.summarize(
            versions, rankings: [.init(name: "featured", size: 50, refreshAfterSeconds: 3_600), .init(name: "fresh", size: 30, refreshAfterSeconds: 900)],
            now: now, scanned: 3, truncated: false)
        #expect(summary.rankings.map(\.ranking) == ["featured", "fresh", "legacy"])
        #expect(summary.rankings[0] == .init(ranking: "featured", count: 2, newestAgeSeconds: 10, oldestAgeSeconds: 5_000, stale: 1, refreshAfterSeconds: 3_600))
        #expect(summary.rankings[1] == .init(ranking: "fresh", count: 0, newestAgeSeconds: nil, oldestAgeSeconds: nil, stale: 0, refreshAfterSeconds: 900))
        #expect(summary.rankings[2].count == 1 && summary.rankings[2].refreshAfterSeconds == nil)
    }

    @Test("The sample session of each arm lands in that arm")
    func sampleSessions() throws {
        func arm(_ name: String, _ mode: InterleavingConfiguration.Mode) throws -> ArmSelector.WeightedArm {
            .init(weight: name == "rare" ? 3 : 97 / 2, arm: InterleavingArm(
                name: name, ranking: "featured", configuration: try InterleavingConfiguration(mode: mode), missPolicy: .inline, refreshAfterSeconds: 60))
        }
        let selector = ArmSelector(arms: [try arm("one", .pattern), try arm("two", .teamDraft), try arm("rare", .pattern)], refreshAfterSeconds: ["featured": 60])
        for name in ["one", "two", "rare"] {
            let session = try #require(selector.sampleSession(for: name), "no session for \(name)")
            #expect(try selector.arm(session: session, ranking: nil).name == name)
        }
        #expect(selector.sampleSession(for: "missing", tries: 50) == nil)
    }

    @Test("Tokens compare whole")
    func tokens() {
        let token = Secret("0123456789abcdef")
        #expect(token.matches("0123456789abcdef".utf8))
        #expect(!token.matches("0123456789abcdeX".utf8))
        #expect(!token.matches("".utf8) && !token.matches("0123456789abcdef0".utf8) && !token.matches("0123456789abcde".utf8))
    }

    @Test("Each script file ends with a newline, so one after another in console.js none runs into the next")
    func scriptFilesEndWithNewline() {
        for (name, bytes) in ConsoleAssets.scriptFiles {
            #expect(bytes.last == UInt8(ascii: "\n"), "\(name)")
        }
        #expect(ConsoleAssets.scriptFiles.first?.name == "common.js", "'use strict' and the helpers come first")
        #expect(ConsoleAssets.scriptFiles.last?.name == "router.js", "the router calls every page, so it comes last")
    }
}
