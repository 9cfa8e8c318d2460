import BraidConfig
import BraidKafka
import BraidRedis
import BraidWiring
import Testing
import BraidCore

/// The clients of `braid ops`, `braid publish` and the services come from the same wiring,
/// so a setting the workers need (a longer session, SASL) reaches the tools too.
@Suite("Every client gets the configuration's settings")
struct ClientWiringTests {
    static var kafka: BraidConfiguration.KafkaSection {
        var section = BraidConfiguration.KafkaSection()
        section.brokers = "kafka-1.internal:9093,kafka-2.internal:9093"
        section.sessionTimeout = .milliseconds(45_000)
        section.heartbeatInterval = .milliseconds(3_000)
        section.properties = ["security.protocol": "sasl_ssl", "sasl.mechanism": "SCRAM-SHA-512", "sasl.password": "s3cret"]
        return section
    }

    @Test func theDeadLetterReaderHasTheWorkersSessionTimeoutHeartbeatAndProperties() {
        let section = Self.kafka
        let reader = section.deadLetterReader(group: "braid-ops-dlq-1a2b3c4d", topic: "braid.requests.dlq")
        let properties = reader.librdkafkaProperties
        #expect(properties["session.timeout.ms"] == "45000")
        #expect(properties["heartbeat.interval.ms"] == "3000")
        for (key, value) in section.properties { #expect(properties[key] == value, "\(key)") }
        let worker = section.workerConsumer().librdkafkaProperties
        for key in ["bootstrap.servers", "session.timeout.ms", "heartbeat.interval.ms"] + section.properties.keys {
            #expect(properties[key] == worker[key], "\(key)")
        }
        #expect(properties["group.id"] == "braid-ops-dlq-1a2b3c4d" && reader.topics == ["braid.requests.dlq"])
        #expect(properties["auto.offset.reset"] == "earliest")
        #expect(properties["client.id"] == "braid-ops-dlq")
    }

    @Test func onlyTheWorkersFetchSmallAndConfiguredPropertiesWin() {
        var section = Self.kafka
        #expect(section.workerConsumer().librdkafkaProperties["max.partition.fetch.bytes"] == "65536")
        #expect(section.eventsConsumer().librdkafkaProperties["max.partition.fetch.bytes"] == "65536")
        #expect(section.deadLetterReader(group: "g", topic: "t").librdkafkaProperties["max.partition.fetch.bytes"] == nil)
        section.properties["max.partition.fetch.bytes"] = "1048576"
        #expect(section.workerConsumer().librdkafkaProperties["max.partition.fetch.bytes"] == "1048576")
        #expect(section.deadLetterReader(group: "g", topic: "t").librdkafkaProperties["max.partition.fetch.bytes"] == "1048576")
    }

    @Test func producersCarryTheProperties() {
        let producer = Self.kafka.producer(clientID: "braid-publish").librdkafkaProperties
        #expect(producer["bootstrap.servers"] == Self.kafka.brokers && producer["client.id"] == "braid-publish")
        for (key, value) in Self.kafka.properties { #expect(producer[key] == value, "\(key)") }
    }

    @Test func aToolsRedisClientDiffersFromTheServicesOnlyInItsPool() throws {
        var section = BraidConfiguration.RedisSection()
        section.url = "rediss://cache.internal:6380/0"
        section.password = "s3cret"
        section.poolSize = 8
        section.commandTimeout = .milliseconds(900)
        section.tls.serverName = "redis.example"
        let service = try section.makeClient()
        #expect(service.configuration == (try section.clientConfiguration()))
        #expect(service.configuration.poolSize == 8)
        var expected = try section.clientConfiguration()
        expected.poolSize = 1
        #expect(try section.makeClient(poolSize: 1).configuration == expected)
    }
}
