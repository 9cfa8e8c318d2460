import BraidContracts
import BraidCore
import BraidRedis
import Foundation

/// Counts the current snapshots of every ranking and their ages by scanning the pointer keys
/// (`<prefix>:{rank:<ranking>:<digest>}:cur`). A version is the time of the request that made
/// it (milliseconds), so a pointer alone gives the age. Reads at most `limit` pointers.
struct SnapshotCensus: Sendable {
    let redis: RedisClient
    let keys: CacheKeys
    let rankings: [ConsoleSettings.Ranking]
    var limit = 2_000

    func count(now: Date = Date()) async throws -> WorkerStatus.Snapshots {
        let pattern = RedisClient.globPattern(prefix: "\(keys.prefix):{rank:") + "}:cur"
        let pointers = try await redis.scanKeys(matching: pattern)
        let read = Array(pointers.prefix(limit))
        var versions: [(ranking: String, version: Int64)] = []
        for chunk in stride(from: 0, to: read.count, by: 32).map({ Array(read[$0..<min($0 + 32, read.count)]) }) {
            try await withThrowingTaskGroup(of: (String, Int64)?.self) { group in
                for key in chunk {
                    group.addTask {
                        guard let ranking = Self.ranking(ofPointer: key, prefix: keys.prefix),
                            let value = try await redis.getString(key), let version = Int64(value)
                        else { return nil }
                        return (ranking, version)
                    }
                }
                for try await entry in group { if let entry { versions.append((entry.0, entry.1)) } }
            }
        }
        return Self.summarize(versions, rankings: rankings, now: now, scanned: read.count, truncated: pointers.count > read.count)
    }

    /// `featured` of `braid:{rank:featured:1a2b…}:cur`.
    static func ranking(ofPointer key: String, prefix: String) -> String? {
        let head = "\(prefix):{rank:"
        guard key.hasPrefix(head), key.hasSuffix("}:cur") else { return nil }
        let rest = key.dropFirst(head.count)
        guard let colon = rest.firstIndex(of: ":") else { return nil }
        return String(rest[..<colon])
    }

    /// Per ranking (every configured one, and any other found in Redis): count, newest and
    /// oldest age, and how many are older than the ranking's refresh age.
    static func summarize(
        _ versions: [(ranking: String, version: Int64)], rankings: [ConsoleSettings.Ranking], now: Date, scanned: Int, truncated: Bool
    ) -> WorkerStatus.Snapshots {
        let refresh = Dictionary(rankings.map { ($0.name, $0.refreshAfterSeconds) }, uniquingKeysWith: { first, _ in first })
        let byRanking = Dictionary(grouping: versions, by: \.ranking)
        let names = Set(refresh.keys).union(byRanking.keys).sorted()
        let nowSeconds = now.timeIntervalSince1970
        let summaries = names.map { name in
            let ages = (byRanking[name] ?? []).map { max(0, (nowSeconds - Double($0.version) / 1000) * 10).rounded() / 10 }
            let refreshAfter = refresh[name]
            return WorkerStatus.RankingSnapshots(
                ranking: name, count: ages.count, newestAgeSeconds: ages.min(), oldestAgeSeconds: ages.max(),
                stale: refreshAfter.map { limit in ages.filter { $0 > Double(limit) }.count } ?? 0, refreshAfterSeconds: refreshAfter)
        }
        return WorkerStatus.Snapshots(rankings: summaries, scanned: scanned, truncated: truncated)
    }
}
