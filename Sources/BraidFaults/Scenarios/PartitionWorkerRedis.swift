import BraidHarness
import BraidDevSupport
import Foundation

/// `partition-worker-redis`: a worker, Redis and the broker each on a host of their own; 6,000
/// requests are published, and once 500 are written the worker's link to Redis is cut for
/// 10 s (packets vanish). Passes when nothing was dead-lettered (the worker paused
/// instead), every request was materialized after the heal, and no snapshot version was
/// written twice; reports how long the backlog took to drain after the heal.
public struct PartitionWorkerRedis: FaultScenario {
    public let name = "partition-worker-redis"
    public var requests = 6_000
    /// The link is cut once the worker has written this many snapshots: mid-stream on a debug
    /// or a release build alike.
    public var cutAtWritten = 500
    public var partition: Duration = .seconds(10)
    public var deadline: Duration = .seconds(120)

    public init() {}

    public func run(on stack: FaultStack) async throws -> FaultResult {
        try await NetworkWorld.with(stack, scenario: name, hosts: ["redis", "broker", "worker"]) { world in
            let redis = try await world.redis(on: "redis")
            let broker = try await world.broker(on: "broker")
            let writes = try await WriteLog.start(on: redis, in: world)
            let worker = try await world.worker(
                on: "worker", name: "worker", environment: world.environment(redis: redis.url, brokers: broker.brokers))
            // Published while the writes are watched: the worker starts on the first before the last is sent.
            async let published: Void = world.publish((0..<requests).map { "partitioned worker \($0)" }, brokers: broker.brokers, as: "requests")
            let started = ContinuousClock.now
            while writes.versionWrites().count < cutAtWritten {
                guard ContinuousClock.now - started < deadline else { throw HarnessError.failed("the worker wrote nothing within \(deadline)") }
                try await Task.sleep(for: .milliseconds(5))
            }
            let before = try await world.snapshots(redis: redis.url)
            try await world.network.cut(world["redis"])
            try await Task.sleep(for: partition)
            try await world.network.heal(world["redis"])
            try await published
            let drained = await world.waitForSnapshots(requests, redis: redis.url, timeout: deadline)
            let metrics = await world.workerMetrics(on: "worker")
            let deadLetters = try await TopicContents.count("braid.requests.dlq", brokers: broker.brokers)

            var result = FaultResult()
            result.figure("requests", requests)
            result.figure("snapshots_when_cut", before)
            result.figure("snapshots", try await world.snapshots(redis: redis.url))
            result.figure("seconds_to_drain_after_heal", drained.map(Seconds.tenths) ?? "never")
            result.figure("pauses", Self.counter(metrics, "braid_worker_pauses_total{dependency=\"redis\"}"))
            result.figure("dead_lettered", deadLetters)
            // Every version the log saw: the check below means something only if it saw them all.
            result.figure("versions_written", writes.versionWrites().count)
            result.figure("versions_written_twice", writes.versionsWrittenTwice())
            let problems = [
                before >= requests ? "every request was done before the cut: cut sooner" : nil,
                drained == nil ? "not every request was materialized within \(deadline) of the heal" : nil,
                deadLetters > 0 ? "\(deadLetters) requests were dead-lettered" : nil,
                writes.versionsWrittenTwice() > 0 ? "a version was written twice" : nil,
                writes.versionWrites().count < requests ? "the write log saw fewer versions than requests" : nil,
                worker.process.hasExited ? "the worker exited" : nil,
            ].compactMap { $0 }
            result.verdict(problems.isEmpty, problems.joined(separator: "; "))
            return result
        }
    }

    /// The value of one counter line of a Prometheus text, or 0.
    static func counter(_ text: String?, _ series: String) -> Int {
        guard let text else { return 0 }
        for line in text.split(separator: "\n") where line.hasPrefix(series + " ") {
            return Int(Double(line.split(separator: " ").last ?? "") ?? 0)
        }
        return 0
    }
}
