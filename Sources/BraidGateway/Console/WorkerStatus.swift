import Foundation

/// What the console's workers page shows: consumer lag per partition with rates, the
/// dead-letter topic's counts and last reasons, and the snapshots in Redis with their ages.
/// A part that cannot be read (broker or Redis down) is left out and named in `errors`.
public struct WorkerStatus: Sendable, Encodable {
    public struct PartitionLag: Sendable, Encodable, Equatable {
        public var partition: Int32
        public var committed: Int64?
        public var highWatermark: Int64
        public var lag: Int64
        /// Messages the group committed per second since the previous reading.
        public var consumedPerSecond: Double?
        /// Messages produced to the partition per second since the previous reading.
        public var producedPerSecond: Double?

        enum CodingKeys: String, CodingKey {
            case partition, committed, lag
            case highWatermark = "high_watermark"
            case consumedPerSecond = "consumed_per_second"
            case producedPerSecond = "produced_per_second"
        }
    }

    public struct Group: Sendable, Encodable {
        public var group: String
        public var topic: String
        public var totalLag: Int64
        public var consumedPerSecond: Double?
        public var partitions: [PartitionLag]

        enum CodingKeys: String, CodingKey {
            case group, topic, partitions
            case totalLag = "total_lag"
            case consumedPerSecond = "consumed_per_second"
        }
    }

    public struct DeadLetter: Sendable, Encodable {
        public var partition: Int32
        public var offset: Int64
        public var failedAt: String
        public var reason: String
        public var source: String
        public var attempts: String
        public var key: String?

        enum CodingKeys: String, CodingKey {
            case partition, offset, reason, source, attempts, key
            case failedAt = "failed_at"
        }
    }

    public struct DeadLetters: Sendable, Encodable {
        public struct Count: Sendable, Encodable {
            public var partition: Int32
            public var count: Int64
        }

        public var topic: String
        /// Dead letters the topic still holds (its retention decides for how long).
        public var total: Int64
        public var partitions: [Count]
        /// The newest few of each partition, newest first.
        public var recent: [DeadLetter]
    }

    public struct RankingSnapshots: Sendable, Encodable, Equatable {
        public var ranking: String
        /// Queries with a current snapshot.
        public var count: Int
        public var newestAgeSeconds: Double?
        public var oldestAgeSeconds: Double?
        /// Snapshots older than the ranking's `refresh_after_seconds` (the next page 1 asks for a refresh).
        public var stale: Int
        public var refreshAfterSeconds: Int?

        enum CodingKeys: String, CodingKey {
            case ranking, count, stale
            case newestAgeSeconds = "newest_age_seconds"
            case oldestAgeSeconds = "oldest_age_seconds"
            case refreshAfterSeconds = "refresh_after_seconds"
        }
    }

    public struct Snapshots: Sendable, Encodable {
        public var rankings: [RankingSnapshots]
        /// Pointer keys read; past the census limit the counts are of a sample.
        public var scanned: Int
        public var truncated: Bool
    }

    /// Seconds since 1970 when this was read.
    public var sampledAt: Double
    public var groups: [Group]
    public var deadLetters: DeadLetters?
    public var snapshots: Snapshots?
    public var errors: [String]

    enum CodingKeys: String, CodingKey {
        case groups, snapshots, errors
        case sampledAt = "sampled_at"
        case deadLetters = "dead_letters"
    }
}
