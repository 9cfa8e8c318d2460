import BraidKafka
import Testing

/// Failures are typed and prompt: bad configuration names the key, an unreachable broker
/// ends in a retriable timeout instead of a hang.
@Suite("Kafka error paths")
struct KafkaErrorPathTests {
    @Test func unknownPropertyIsRejectedNamingTheKey() throws {
        var configuration = KafkaProducerConfiguration(brokers: "127.0.0.1:9")
        configuration.properties["no.such.property"] = "1"
        let error = try #require(throws: KafkaError.self) { try KafkaProducer(configuration: configuration) }
        #expect(error.code == .configuration)
        #expect(error.message.contains("no.such.property"))
        #expect(error.message.contains("unknown"))
    }

    @Test func invalidValueIsRejectedNamingTheKey() throws {
        var configuration = KafkaConsumerConfiguration(brokers: "127.0.0.1:9", groupID: "g", topics: ["t"])
        configuration.properties["session.timeout.ms"] = "banana"
        let error = try #require(throws: KafkaError.self) { try KafkaConsumer(configuration: configuration) }
        #expect(error.code == .configuration)
        #expect(error.message.contains("session.timeout.ms"))
    }

    /// A mistyped secret property (`BRAID_KAFKA_PROPERTY_SASL_PASSWROD`) holds a password all
    /// the same: the error names the property and never repeats the value, nor does an
    /// invalid value come back inside librdkafka's own reason.
    @Test func refusedPropertiesNeverEchoTheirValue() throws {
        let secret = "Zq8-not-echoed-4f1d2c9e"
        var mistyped = KafkaProducerConfiguration(brokers: "127.0.0.1:9")
        mistyped.properties["sasl.passwrod"] = secret
        let unknown = try #require(throws: KafkaError.self) { try KafkaProducer(configuration: mistyped) }
        #expect(unknown.message.contains("sasl.passwrod"))
        #expect(!"\(unknown)".contains(secret), "\(unknown)")

        var invalid = KafkaProducerConfiguration(brokers: "127.0.0.1:9")
        invalid.properties["security.protocol"] = secret
        let refused = try #require(throws: KafkaError.self) { try KafkaProducer(configuration: invalid) }
        #expect(refused.message.contains("security.protocol"))
        #expect(!"\(refused)".contains(secret), "\(refused)")
    }

    @Test func sendAndAwaitToABrokerThatIsDownFailsRetriablyInsteadOfHanging() async throws {
        // Port 9 (discard) is not listening on loopback here: connections are refused.
        var configuration = KafkaProducerConfiguration(brokers: "127.0.0.1:9")
        configuration.messageTimeoutMilliseconds = 1_500
        configuration.flushTimeoutMilliseconds = 500
        let producer = try KafkaProducer(configuration: configuration)
        let outcome = try await KafkaTest.within(20, "sendAndAwait to a broker that is down") {
            do {
                _ = try await producer.sendAndAwait(KafkaProducerMessage(topic: "braid.events", key: nil, value: "lost"))
                return KafkaError?.none
            } catch let error as KafkaError {
                return error
            }
        }
        await producer.shutdown()
        let error = try #require(outcome, "the send succeeded although no broker listens")
        #expect(error.code == .timedOut)
        #expect(error.isRetriable)
        #expect(!error.isFatal)
        #expect(error.librdkafkaName == "_MSG_TIMED_OUT")
    }
}
