import BraidKafka
import Testing

/// Pure parts of BraidKafka: configuration mapping, lag arithmetic, statistics parsing.
@Suite("Kafka pure logic")
struct KafkaUnitTests {
    @Test func producerDefaultsAreIdempotentWithAcksAllAndRawPropertiesWin() {
        var configuration = KafkaProducerConfiguration(brokers: "b:1")
        configuration.properties["linger.ms"] = "20"
        let properties = configuration.librdkafkaProperties
        #expect(properties["enable.idempotence"] == "true")
        #expect(properties["acks"] == "all")
        #expect(properties["linger.ms"] == "20")
        #expect(properties["statistics.interval.ms"] == nil)
    }

    @Test func consumerStoresOffsetsOnlyWhenToldAndCommitsPeriodically() {
        var configuration = KafkaConsumerConfiguration(brokers: "b:1", groupID: "g", topics: ["t"])
        configuration.statisticsIntervalMilliseconds = 5_000
        let properties = configuration.librdkafkaProperties
        #expect(properties["enable.auto.offset.store"] == "false")
        #expect(properties["enable.auto.commit"] == "true")
        #expect(properties["session.timeout.ms"] == "6000")
        #expect(properties["heartbeat.interval.ms"] == "300")
        #expect(properties["auto.offset.reset"] == "earliest")
        #expect(properties["statistics.interval.ms"] == "5000")
    }

    @Test func lagCountsFromTheCommitOrFromTheEarliestRetainedMessage() {
        #expect(KafkaPartitionLag(topic: "t", partition: 0, committed: 7, lowWatermark: 0, highWatermark: 10).lag == 3)
        #expect(KafkaPartitionLag(topic: "t", partition: 0, committed: nil, lowWatermark: 4, highWatermark: 10).lag == 6)
        #expect(KafkaPartitionLag(topic: "t", partition: 0, committed: 2, lowWatermark: 4, highWatermark: 10).lag == 6)
        #expect(KafkaPartitionLag(topic: "t", partition: 0, committed: 10, lowWatermark: 0, highWatermark: 10).lag == 0)
    }

    @Test func statisticsJSONYieldsTotalsAndPerPartitionConsumerLag() throws {
        let json = """
            {"name":"braid#consumer-1","type":"consumer","msg_cnt":12,"txmsgs":5,"rxmsgs":300,
             "tx_bytes":1000,"rx_bytes":64000,"brokers":{},
             "topics":{"braid.requests":{"topic":"braid.requests","partitions":{
               "0":{"partition":0,"consumer_lag":4},"1":{"partition":1,"consumer_lag":-1},
               "-1":{"partition":-1,"consumer_lag":-1}}}}}
            """
        let stats = try #require(KafkaStatistics.parse(Array(json.utf8)))
        #expect(stats.queuedMessages == 12)
        #expect(stats.transmittedMessages == 5)
        #expect(stats.receivedMessages == 300)
        #expect(stats.receivedBytes == 64000)
        #expect(stats.consumerLag == [TopicPartition(topic: "braid.requests", partition: 0): 4])
        #expect(KafkaStatistics.parse(Array("not json".utf8)) == nil)
    }
}
