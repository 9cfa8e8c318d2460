import BraidHarness
import Foundation

/// One `make bench`: the `braid` version and the machine, a Redis server and the broker for
/// every group, then each group after a `== <group>` line. Every process is started in `run`;
/// the caller stops them (``RunDirectory/stopAll(grace:)``) when this returns or throws.
public enum BenchmarkRun {
    public static func run(
        _ groups: [BenchmarkGroup], settings: BenchmarkSettings, in run: RunDirectory, braid: String,
        say: @escaping @Sendable (String) -> Void
    ) async throws {
        Report.line(try await ChildProcess.check(braid, ["version"]).trimmingCharacters(in: .whitespacesAndNewlines))
        let redis = try await RedisServer.start(in: run)
        say("redis-server listening on 127.0.0.1:\(redis.port) (pid \(redis.process.pid))")
        let broker = try await KafkaBroker.start(in: run, partitions: settings.partitions)
        say("Kafka broker listening on \(broker.brokers) (pid \(broker.process.pid); \(settings.partitions) partitions per topic)")
        let context = BenchmarkContext(run: run, redis: redis, broker: broker, braid: braid, settings: settings, say: say)
        Report.line(try await Machine.describe())
        for group in groups {
            Report.line("== \(group.rawValue)")
            try await group.run(context)
        }
    }
}
