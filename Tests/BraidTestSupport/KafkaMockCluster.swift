@testable import BraidKafka
import CRdKafka
import Foundation

/// librdkafka's own mock cluster: brokers that run inside this process, on loopback ports the
/// OS picks, speaking the Kafka protocol (produce, fetch, consumer groups, offset commits).
/// Every instance is private to its test, so consumer-group and worker tests need no broker
/// process and run in parallel. Needs librdkafka ≥ 2.2 (the one `.lib` holds).
///
/// One client made with `test.mock.num.brokers` hosts the cluster; the clients under test
/// connect to its bootstrap address like to any other cluster.
public final class KafkaMockCluster: @unchecked Sendable {
    public struct Failure: Error, CustomStringConvertible { public let description: String }

    private let host: RDKafkaHandle
    /// `rd_kafka_mock_cluster_t *`, owned by `host`.
    private let cluster: OpaquePointer
    /// `bootstrap.servers` of the mock brokers.
    public let brokers: String

    /// - Parameter initialRebalanceDelay: how long the group coordinator waits for more
    ///   members before the first assignment (a broker's `group.initial.rebalance.delay.ms`,
    ///   3 s in the mock by default).
    public init(brokers count: Int = 3, initialRebalanceDelay: Duration = .milliseconds(100)) throws {
        host = try RDKafkaHandle(.producer, properties: ["test.mock.num.brokers": String(count), "log_level": "3"], context: nil)
        guard let cluster = rd_kafka_handle_mock_cluster(host.raw), let bootstraps = rd_kafka_mock_cluster_bootstraps(cluster) else {
            host.destroy()
            throw Failure(description: "librdkafka did not start a mock cluster")
        }
        self.cluster = cluster
        brokers = String(cString: bootstraps)
        // Not in the system's 2.0 header this module compiles against; present in the 2.16 it runs.
        typealias SetDelay = @convention(c) (OpaquePointer?, Int32) -> Void
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "rd_kafka_mock_group_initial_rebalance_delay_ms") else {
            host.destroy()
            throw Failure(description: "this librdkafka (\(LibrdkafkaVersion.loaded)) cannot shorten the mock group's initial rebalance delay")
        }
        unsafeBitCast(symbol, to: SetDelay.self)(cluster, Int32(initialRebalanceDelay / .milliseconds(1)))
    }

    deinit {
        host.destroy()
    }

    /// A topic with `partitions` partitions (replication factor 1).
    public func createTopic(_ name: String, partitions: Int32) throws {
        let result = rd_kafka_mock_topic_create(cluster, name, partitions, 1)
        guard result == RD_KAFKA_RESP_ERR_NO_ERROR else {
            throw Failure(description: "mock topic \(name): \(String(cString: rd_kafka_err2str(result)))")
        }
    }

    /// A consumer configuration for this cluster: commits every 100 ms, heartbeats every
    /// 300 ms, a session of 3 s. The mock coordinator waits the session less a second for
    /// members to rejoin on every change of membership, so the session sets the pace of the
    /// group tests. A test that holds a message across close() asks for a longer one:
    /// librdkafka sends no heartbeats during close (see
    /// `aFinishSlowerThanTheSessionTimeoutDuringCloseLosesTheCommit`), and a busy machine holding
    /// a worker back on shutdown must not cost its final commit.
    public func consumerConfiguration(topic: String, group: String, session: Duration = .seconds(3)) -> KafkaConsumerConfiguration {
        var configuration = KafkaConsumerConfiguration(brokers: brokers, groupID: group, topics: [topic])
        configuration.sessionTimeoutMilliseconds = Int(session / .milliseconds(1))
        configuration.heartbeatIntervalMilliseconds = session > .seconds(10) ? 500 : 300
        configuration.autoCommitIntervalMilliseconds = 100
        configuration.revocationTimeoutMilliseconds = 2_000
        configuration.properties["log_level"] = "3"
        return configuration
    }

    public func producerConfiguration() -> KafkaProducerConfiguration {
        var configuration = KafkaProducerConfiguration(brokers: brokers)
        configuration.lingerMilliseconds = 1
        configuration.messageTimeoutMilliseconds = 5_000
        configuration.properties["log_level"] = "3"
        return configuration
    }
}
