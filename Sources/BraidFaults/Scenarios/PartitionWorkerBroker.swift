import BraidHarness
import BraidDevSupport
import Foundation

/// `partition-worker-broker`: three workers, Redis and the broker each on a host of their own;
/// 2,000 requests are published, and the first worker's packets to the broker are dropped
/// silently for longer than the session timeout (the worker still reaches Redis). Passes when
/// the group gave the dropped worker's partitions to the other two, the dropped worker was
/// assigned partitions again after the heal, every request was materialized, nothing was
/// dead-lettered, and no snapshot version was written twice.
public struct PartitionWorkerBroker: FaultScenario {
    public let name = "partition-worker-broker"
    public var requests = 2_000
    public var dropAfter: Duration = .seconds(1)
    /// Longer than the workers' session timeout (`kafka.session_timeout_ms`, 6 s here).
    public var partition: Duration = .seconds(15)
    public var deadline: Duration = .seconds(120)

    public init() {}

    public func run(on stack: FaultStack) async throws -> FaultResult {
        try await NetworkWorld.with(stack, scenario: name, hosts: ["redis", "broker", "w1", "w2", "w3"]) { world in
            let redis = try await world.redis(on: "redis")
            let broker = try await world.broker(on: "broker")
            let writes = try await WriteLog.start(on: redis, in: world)
            let environment = world.environment(
                redis: redis.url, brokers: broker.brokers, extra: ["BRAID_KAFKA_SESSION_TIMEOUT_MS": "6000", "BRAID_KAFKA_HEARTBEAT_INTERVAL_MS": "300"])
            var workers: [BraidService] = []
            for name in ["w1", "w2", "w3"] {
                // The local broker can leave members that join in the same instant unassigned.
                if !workers.isEmpty { try await Task.sleep(for: .seconds(4)) }
                workers.append(try await world.worker(on: name, name: name, environment: environment))
            }
            try await world.publish((0..<requests).map { "worker cut from the broker \($0)" }, brokers: broker.brokers, as: "requests")
            try await Task.sleep(for: dropAfter)
            let droppedWorker = world["w1"]
            let assignmentsBefore = workers.map { Self.assignments(in: world.world.run.file("\($0.name).log")) }
            try await world.network.drop(from: droppedWorker, to: world["broker"].address)
            try await Task.sleep(for: partition)
            let takenOver = workers.dropFirst().enumerated().contains { index, worker in
                Self.assignments(in: world.world.run.file("\(worker.name).log")) > assignmentsBefore[index + 1]
            }
            try await world.network.undrop(from: droppedWorker, to: world["broker"].address)
            let healedAt = ContinuousClock.now
            var rejoined: Duration?
            while ContinuousClock.now - healedAt < .seconds(60) {
                if Self.assignments(in: world.world.run.file("w1.log")) > assignmentsBefore[0] {
                    rejoined = .now - healedAt
                    break
                }
                try await Task.sleep(for: .milliseconds(250))
            }
            let drained = await world.waitForSnapshots(requests, redis: redis.url, timeout: deadline)
            let deadLetters = try await TopicContents.count("braid.requests.dlq", brokers: broker.brokers)

            var result = FaultResult()
            result.figure("requests", requests)
            result.figure("snapshots", try await world.snapshots(redis: redis.url))
            result.figure("partitions_taken_over", takenOver ? "yes" : "no")
            result.figure("seconds_until_rejoined_after_heal", rejoined.map(Seconds.tenths) ?? "never")
            result.figure("seconds_to_drain_after_heal", drained.map(Seconds.tenths) ?? "never")
            result.figure("dead_lettered", deadLetters)
            // Every version the log saw: the check below means something only if it saw them all.
            result.figure("versions_written", writes.versionWrites().count)
            result.figure("versions_written_twice", writes.versionsWrittenTwice())
            let problems = [
                takenOver ? nil : "the other workers were not given the dropped worker's partitions",
                rejoined == nil ? "the dropped worker was not assigned partitions again within 60 s of the heal" : nil,
                drained == nil ? "not every request was materialized" : nil,
                deadLetters > 0 ? "\(deadLetters) requests were dead-lettered" : nil,
                writes.versionsWrittenTwice() > 0 ? "a version was written twice" : nil,
                writes.versionWrites().count < requests ? "the write log saw fewer versions than requests" : nil,
            ].compactMap { $0 }
            result.verdict(problems.isEmpty, problems.joined(separator: "; "))
            return result
        }
    }

    /// How often a worker's log says it was assigned partitions of the requests topic.
    static func assignments(in log: URL) -> Int {
        let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").filter { $0.contains("partitions assigned") && $0.contains("braid.requests[") }.count
    }
}
