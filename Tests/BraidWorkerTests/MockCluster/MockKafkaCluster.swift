@testable import BraidKafka
import CRdKafka
import Foundation

/// librdkafka's in-process mock cluster for worker tests without a broker: the same as
/// `KafkaMockCluster` in BraidKafkaTests, kept here because test targets share code only
/// through BraidTestSupport, which holds the real-server harness.
final class MockKafkaCluster: @unchecked Sendable {
    struct Failure: Error, CustomStringConvertible { let description: String }

    private let host: RDKafkaHandle
    private let cluster: OpaquePointer
    let brokers: String

    init() throws {
        host = try RDKafkaHandle(.producer, properties: ["test.mock.num.brokers": "3", "log_level": "3"], context: nil)
        guard let cluster = rd_kafka_handle_mock_cluster(host.raw), let bootstraps = rd_kafka_mock_cluster_bootstraps(cluster) else {
            host.destroy()
            throw Failure(description: "librdkafka did not start a mock cluster")
        }
        self.cluster = cluster
        brokers = String(cString: bootstraps)
        // The group coordinator's first assignment waits 3 s for more members by default.
        typealias SetDelay = @convention(c) (OpaquePointer?, Int32) -> Void
        if let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "rd_kafka_mock_group_initial_rebalance_delay_ms") {
            unsafeBitCast(symbol, to: SetDelay.self)(cluster, 50)
        }
    }

    deinit {
        host.destroy()
    }

    func createTopic(_ name: String, partitions: Int32) throws {
        let result = rd_kafka_mock_topic_create(cluster, name, partitions, 1)
        guard result == RD_KAFKA_RESP_ERR_NO_ERROR else {
            throw Failure(description: "mock topic \(name): \(String(cString: rd_kafka_err2str(result)))")
        }
    }

    /// Commits every 100 ms; a long session, as librdkafka sends no heartbeats during close()
    /// (a busy machine holding the worker back on shutdown must not cost the final commit).
    func consumerConfiguration(topic: String, group: String) -> KafkaConsumerConfiguration {
        var configuration = KafkaConsumerConfiguration(brokers: brokers, groupID: group, topics: [topic])
        configuration.sessionTimeoutMilliseconds = 30_000
        configuration.heartbeatIntervalMilliseconds = 500
        configuration.autoCommitIntervalMilliseconds = 100
        configuration.revocationTimeoutMilliseconds = 2_000
        configuration.properties["log_level"] = "3"
        return configuration
    }

    func producerConfiguration() -> KafkaProducerConfiguration {
        var configuration = KafkaProducerConfiguration(brokers: brokers)
        configuration.lingerMilliseconds = 1
        configuration.messageTimeoutMilliseconds = 5_000
        configuration.properties["log_level"] = "3"
        return configuration
    }
}
