import BraidContracts
import BraidCore
import BraidKafka
import Tracing

/// Publishes precompute requests to `braid.requests`, for backend services and the gateway.
///
/// Each request is keyed by the cache key it writes (``PrecomputeRequest/messageKey``), so
/// all requests for one ranking-and-query or one component go to one partition and are
/// processed in order by one worker.
///
/// With tracing on, each publish is a producer span (a child of the caller's span, e.g. the
/// gateway's page) whose context travels in the message's `traceparent` header, so the
/// worker's span for the request joins the same trace. With tracing off, no header is added.
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
        try await withSpan("publish \(topic)", ofKind: .producer) { span in
            annotate(span, request)
            return try await producer.sendAndAwait(message(for: request))
        }
    }

    /// Enqueues without waiting; outcomes are counted in the producer's delivery counts.
    public func send(_ request: PrecomputeRequest) async throws {
        try await withSpan("publish \(topic)", ofKind: .producer) { span in
            annotate(span, request)
            try await producer.send(message(for: request))
        }
    }

    /// The Kafka message of a request, carrying the current trace context (if any).
    public func message(for request: PrecomputeRequest) -> KafkaProducerMessage {
        Self.message(for: request, topic: topic, context: ServiceContext.current)
    }

    /// The Kafka message of a request: keyed by its cache key, valued by its wire JSON, with
    /// the headers `instrument` writes for `context` (none without a context or without tracing).
    public static func message(
        for request: PrecomputeRequest, topic: String, context: ServiceContext?,
        instrument: any Instrument = InstrumentationSystem.instrument
    ) -> KafkaProducerMessage {
        var headers: [KafkaHeader] = []
        if let context { KafkaTraceContext.inject(context, into: &headers, instrument: instrument) }
        return KafkaProducerMessage(topic: topic, key: Array(request.messageKey.utf8), value: Array(request.encoded()), headers: headers)
    }

    private func annotate(_ span: any Span, _ request: PrecomputeRequest) {
        span.attributes["messaging.system"] = "kafka"
        span.attributes["messaging.destination.name"] = topic
        span.attributes["braid.request.id"] = request.id
        span.attributes["braid.request.key"] = request.messageKey
    }
}
