import BraidCore
import BraidKafka

/// Publishes precompute requests to `braid.requests`, for backend services and the gateway.
///
/// Each request is keyed by the cache key it writes (``PrecomputeRequest/messageKey``), so
/// all requests for one ranking-and-query or one component go to one partition and are
/// processed in order by one worker.
public struct RequestPublisher: Sendable {
    public let producer: KafkaProducer
    public let topic: String

    public init(producer: KafkaProducer, topic: String = "braid.requests") {
        self.producer = producer
        self.topic = topic
    }

    /// Publishes and waits until the broker has stored the request.
    /// - Throws: `KafkaError`; `isRetriable` says whether publishing again may succeed.
    @discardableResult
    public func publish(_ request: PrecomputeRequest) async throws -> KafkaDeliveryReport {
        try await producer.sendAndAwait(message(for: request))
    }

    /// Enqueues without waiting; outcomes are counted in the producer's delivery counts.
    public func send(_ request: PrecomputeRequest) async throws {
        try await producer.send(message(for: request))
    }

    /// The Kafka message of a request: keyed by its cache key, valued by its wire JSON.
    public func message(for request: PrecomputeRequest) -> KafkaProducerMessage {
        KafkaProducerMessage(topic: topic, key: Array(request.messageKey.utf8), value: Array(request.encoded()))
    }
}
