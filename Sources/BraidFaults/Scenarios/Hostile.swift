import BraidContracts
import BraidHarness
import BraidKafka
import BraidDevSupport
import Foundation

/// `hostile`: 2 workers, warmed with 200 valid requests, get 1,000 malformed and hostile
/// messages (``HostileMessages``). Passes when all 1,000 are in the dead-letter topic, each
/// with a `braid-dlq-reason` header, both workers are alive, and their resident memory grew
/// by at most 32 MiB.
public struct Hostile: FaultScenario {
    public let name = "hostile"
    public var messages = 1_000
    public var warmUp = 200
    public var deadline: Duration = .seconds(180)
    public var maxGrowthMiB = 32

    public init() {}

    public func run(on stack: FaultStack) async throws -> FaultResult {
        try await ScenarioWorld.with(stack, scenario: name) { world in
            let fixture = try await world.fixture()
            let workers = try await fixture.startWorkers(["w1", "w2"])
            let (status, last) = try await fixture.publish(WorkerFixture.rankingRequests((0..<warmUp).map { "warm up \($0)" }), as: "warm")
            guard status == 0 else { throw HarnessError.failed("publishing the warm-up requests failed: \(last)") }
            let warmUp = warmUp
            guard try await fixture.withRedis({ try await fixture.waitForSnapshots(warmUp, in: $0, timeout: .seconds(60)) }) else {
                throw HarnessError.failed("the warm-up requests were not materialized within 60 s")
            }
            let rssBefore = workers.map { ResidentMemory.kibibytes(of: $0.pid) ?? 0 }.reduce(0, +)

            let producer = try KafkaProducer(configuration: KafkaProducerConfiguration(brokers: fixture.brokers))
            for index in 0..<messages {
                try await producer.send(
                    KafkaProducerMessage(topic: fixture.requestsTopic, key: "\(name)-\(index + 1)", value: HostileMessages.message(index)))
            }
            await producer.shutdown()
            guard producer.deliveryCounts.delivered == messages else {
                throw HarnessError.failed("could not produce the hostile messages: \(producer.deliveryCounts)")
            }
            _ = try await TopicContents.wait(for: messages, in: fixture.deadLetterTopic, brokers: fixture.brokers, timeout: deadline, interval: .seconds(1))
            let letters = try await TopicContents.read(fixture.deadLetterTopic, brokers: fixture.brokers)
            let dead = letters.filter { $0.keyString?.hasPrefix("\(name)-") == true }.count
            let reasons = letters.compactMap { $0.header(DeadLetterHeader.reason).map { String(decoding: $0, as: UTF8.self) } }

            var result = FaultResult()
            result.figure("dead_lettered", dead)
            result.figure("with_reason_header", reasons.count)
            ReasonTally.lines(reasons).forEach { result.note($0) }
            let alive = workers.allSatisfy { !$0.hasExited }
            let rssAfter = workers.map { ResidentMemory.kibibytes(of: $0.pid) ?? 0 }.reduce(0, +)
            result.figure("workers_rss_mib_before", rssBefore / 1024)
            result.figure("workers_rss_mib_after", rssAfter / 1024)
            let growth = (rssAfter - rssBefore) / 1024
            result.verdict(
                dead == messages && reasons.count >= messages && alive && growth <= maxGrowthMiB,
                "dead-lettered \(dead), with reason \(reasons.count), workers alive \(alive ? 1 : 0), RSS growth \(growth) MiB")
            return result
        }
    }
}

/// Resident memory of a process, from /proc.
enum ResidentMemory {
    /// `VmRSS` of `pid` in KiB; nil when the process is gone.
    static func kibibytes(of pid: pid_t) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            return line.split(whereSeparator: { $0 == " " || $0 == "\t" }).dropFirst().first.flatMap { Int($0) }
        }
        return nil
    }
}
