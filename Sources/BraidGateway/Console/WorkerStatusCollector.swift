import BraidContracts
import BraidCore
import BraidKafka
import BraidRedis
import Foundation

/// Reads ``WorkerStatus`` for the console, at most once per `maxAge` however many browsers
/// refresh (each reading costs the broker a committed-offsets and a watermark request per
/// topic, and Redis a scan), and keeps the previous lag reading of each group for rates.
public actor WorkerStatusCollector {
    let brokers: String
    let properties: [String: String]
    /// Created on the first reading: a gateway whose console nobody opens keeps no extra
    /// connection to the brokers.
    private var admin: KafkaAdmin?
    let census: SnapshotCensus
    let settings: ConsoleSettings
    let maxAge: Duration
    /// Dead letters shown per partition.
    let recentPerPartition = 5

    private var latest: (status: WorkerStatus, at: ContinuousClock.Instant)?
    private var inFlight: Task<WorkerStatus, Never>?
    private var previous: [String: LagRates.Reading] = [:]

    public init(brokers: String, properties: [String: String], redis: RedisClient, keys: CacheKeys, settings: ConsoleSettings, maxAge: Duration = .seconds(2)) {
        self.brokers = brokers
        self.properties = properties
        census = SnapshotCensus(redis: redis, keys: keys, rankings: settings.rankings)
        self.settings = settings
        self.maxAge = maxAge
    }

    public func status() async -> WorkerStatus {
        if let latest, latest.at.duration(to: .now) < maxAge { return latest.status }
        if let inFlight { return await inFlight.value }
        let task = Task { await self.read() }
        inFlight = task
        let status = await task.value
        inFlight = nil
        latest = (status, .now)
        return status
    }

    private func read() async -> WorkerStatus {
        var errors: [String] = []
        var groups: [WorkerStatus.Group] = []
        var deadLetters: WorkerStatus.DeadLetters?
        do {
            if admin == nil { admin = try KafkaAdmin(brokers: brokers, properties: properties, timeoutMilliseconds: 5_000) }
        } catch {
            errors.append("Kafka admin client: \(error)")
        }
        if let admin {
            for (group, topic) in [(settings.consumerGroup, settings.requestsTopic), (settings.eventsConsumerGroup, settings.eventsTopic)] {
                do {
                    groups.append(rated(group: group, topic: topic, try await admin.lag(group: group, topic: topic)))
                } catch {
                    errors.append("lag of \(group) on \(topic): \(error)")
                }
            }
            do {
                deadLetters = Self.deadLetters(try await admin.tail(topic: settings.deadLetterTopic, perPartition: recentPerPartition))
            } catch {
                errors.append("dead letters in \(settings.deadLetterTopic): \(error)")
            }
        }
        var snapshots: WorkerStatus.Snapshots?
        do {
            snapshots = try await census.count()
        } catch {
            errors.append("snapshots in Redis: \(error)")
        }
        return WorkerStatus(
            sampledAt: Date().timeIntervalSince1970, groups: groups, deadLetters: deadLetters, snapshots: snapshots, errors: errors)
    }

    private func rated(group: String, topic: String, _ lags: [KafkaPartitionLag]) -> WorkerStatus.Group {
        let reading = LagRates.Reading(
            at: Date().timeIntervalSince1970,
            partitions: lags.sorted { $0.partition < $1.partition }.map {
                WorkerStatus.PartitionLag(partition: $0.partition, committed: $0.committed, highWatermark: $0.highWatermark, lag: $0.lag)
            })
        let key = "\(group)\u{0}\(topic)"
        let partitions = LagRates.apply(previous: previous[key], current: reading)
        previous[key] = reading
        let rates = partitions.compactMap(\.consumedPerSecond)
        return WorkerStatus.Group(
            group: group, topic: topic, totalLag: partitions.reduce(0) { $0 + $1.lag },
            consumedPerSecond: rates.isEmpty ? nil : rates.reduce(0, +), partitions: partitions)
    }

    static func deadLetters(_ tail: KafkaTopicTail) -> WorkerStatus.DeadLetters {
        func header(_ message: KafkaConsumerMessage, _ name: String) -> String {
            message.header(name).map { String(decoding: $0, as: UTF8.self) } ?? ""
        }
        let recent = tail.messages.map { message in
            WorkerStatus.DeadLetter(
                partition: message.partition, offset: message.offset, failedAt: header(message, DeadLetterHeader.failedAt),
                reason: header(message, DeadLetterHeader.reason), source: header(message, DeadLetterHeader.source),
                attempts: header(message, DeadLetterHeader.attempts), key: message.keyString)
        }.sorted { ($0.failedAt, $0.partition, $0.offset) > ($1.failedAt, $1.partition, $1.offset) }
        return WorkerStatus.DeadLetters(
            topic: tail.topic, total: tail.partitions.reduce(0) { $0 + $1.count },
            partitions: tail.partitions.map { .init(partition: $0.partition, count: $0.count) }, recent: recent)
    }
}
