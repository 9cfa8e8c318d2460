import BraidHarness
import BraidKafka
import BraidDevSupport
import Foundation

/// `worker-kill`: 3 workers joined 4 s apart; 2,000 ranking requests for distinct queries;
/// the last worker to join gets SIGKILL (no commit, no LeaveGroup) once 400 snapshots exist.
/// Passes when all 2,000 snapshots exist within 240 s of the kill.
///
/// `WorkerGroupTests` runs the same scenario with messages no worker can process among the
/// requests (``invalid``) and a graceful stop of another worker after the kill
/// (``stopOneGracefully``), and checks the dead letters and exit statuses of the ``Outcome``.
public struct WorkerKill: FaultScenario {
    public let name = "worker-kill"
    public var requests = 2_000
    /// Snapshots that exist when the SIGKILL comes.
    public var killAt = 400
    public var workers = 3
    /// Between one worker's assignment and the next one's start.
    public var spacing: Duration = .seconds(4)
    public var deadline: Duration = .seconds(240)
    /// Messages no worker can process, sent after the requests (keys `bad-<n>`).
    public var invalid: [[UInt8]] = []
    /// SIGTERM the first worker right after the kill, while work remains: its partitions are
    /// handed over after it drains.
    public var stopOneGracefully = false

    public init(
        requests: Int = 2_000, killAt: Int = 400, workers: Int = 3, spacing: Duration = .seconds(4), deadline: Duration = .seconds(240),
        invalid: [[UInt8]] = [], stopOneGracefully: Bool = false
    ) {
        self.requests = requests
        self.killAt = killAt
        self.workers = workers
        self.spacing = spacing
        self.deadline = deadline
        self.invalid = invalid
        self.stopOneGracefully = stopOneGracefully
    }

    /// What happened.
    public struct Outcome: Sendable {
        public var snapshotsWhenKilled: Int
        /// From the kill until every snapshot existed; nil when they did not within the deadline.
        public var finishedAfterKill: Duration?
        public var snapshots: Int
        /// The whole dead-letter topic (read only when ``WorkerKill/invalid`` is not empty).
        public var deadLetters: [KafkaConsumerMessage]
        /// Wait statuses of the workers stopped with SIGTERM: the graceful one, then the
        /// survivors at the end (nil: did not exit within 30 s).
        public var gracefulExits: [Int32?]
    }

    public func run(on stack: FaultStack) async throws -> FaultResult {
        result(of: try await perform(on: stack))
    }

    public func result(of outcome: Outcome) -> FaultResult {
        var result = FaultResult()
        result.figure("snapshots_when_killed", outcome.snapshotsWhenKilled)
        if let finished = outcome.finishedAfterKill {
            result.figure("seconds_to_finish_after_kill", Seconds.whole(finished))
            result.figure("snapshots", outcome.snapshots)
            result.verdict(true, "")
        } else {
            result.figure("snapshots", outcome.snapshots)
            result.verdict(false, "only \(outcome.snapshots) of \(requests) snapshots within \(deadline.components.seconds) s of the kill")
        }
        return result
    }

    public func perform(on stack: FaultStack) async throws -> Outcome {
        try await ScenarioWorld.with(stack, scenario: name) { world in
            let fixture = try await world.fixture()
            let started = try await fixture.startWorkers((1...workers).map { "w\($0)" }, spacing: spacing)
            let victim = started[started.count - 1]
            // The first worker stops gracefully after the kill when asked to; the others live on.
            let graceful = stopOneGracefully ? started.first : nil
            let survivors = started.dropLast().dropFirst(stopOneGracefully ? 1 : 0)
            let (status, last) = try await fixture.publish(WorkerFixture.rankingRequests((0..<requests).map { "killed worker \($0)" }), as: "kill")
            guard status == 0 else { throw HarnessError.failed("publishing the requests failed: \(last)") }
            if !invalid.isEmpty { try await sendInvalid(fixture) }

            let (killAt, deadline, requests) = (killAt, deadline, requests)
            var outcome = try await fixture.withRedis { redis in
                guard try await fixture.waitForSnapshots(killAt, in: redis, timeout: deadline, interval: .milliseconds(100)) else {
                    let found = try await fixture.snapshots(in: redis)
                    throw HarnessError.failed("only \(found) snapshots after \(deadline); no kill")
                }
                victim.signal(SIGKILL)
                let whenKilled = try await fixture.snapshots(in: redis)
                let killedAt = ContinuousClock.now
                var exits: [Int32?] = []
                if let graceful { exits.append(await graceful.stop(grace: .seconds(30))) }
                let finished = try await fixture.waitForSnapshots(requests, in: redis, timeout: deadline)
                let finishedAfter = finished ? ContinuousClock.now - killedAt : nil
                return Outcome(
                    snapshotsWhenKilled: whenKilled, finishedAfterKill: finishedAfter, snapshots: try await fixture.snapshots(in: redis),
                    deadLetters: [], gracefulExits: exits)
            }
            if !invalid.isEmpty {
                // Every letter stored, then a moment more so that duplicates would show.
                _ = try await TopicContents.wait(for: invalid.count, in: fixture.deadLetterTopic, brokers: fixture.brokers, timeout: .seconds(60))
                try await Task.sleep(for: .seconds(3))
                outcome.deadLetters = try await TopicContents.read(fixture.deadLetterTopic, brokers: fixture.brokers)
            }
            for survivor in survivors {
                outcome.gracefulExits.append(await survivor.stop(grace: .seconds(30)))
            }
            return outcome
        }
    }

    private func sendInvalid(_ fixture: WorkerFixture) async throws {
        let producer = try KafkaProducer(configuration: KafkaProducerConfiguration(brokers: fixture.brokers))
        for (index, payload) in invalid.enumerated() {
            try await producer.send(KafkaProducerMessage(topic: fixture.requestsTopic, key: Array("bad-\(index)".utf8), value: payload))
        }
        await producer.shutdown()
        guard producer.deliveryCounts == KafkaDeliveryCounts(delivered: invalid.count, failed: 0) else {
            throw HarnessError.failed("sending the invalid messages: \(producer.deliveryCounts)")
        }
    }
}
