import BraidCore
import BraidKafka
import BraidPrecompute
import Foundation
import Logging

/// `POST /v1/events` and `GET /v1/experiments/{id}`: verifies impression ids, resolves the
/// team of each click, publishes the events to `braid.events` for the workers to credit, and
/// reads the credit back.
public struct EventService: Sendable {
    public let codec: ImpressionCodec
    public let producer: KafkaProducer
    public let topic: String
    public let experiments: ExperimentStore
    /// How long a request waits for Kafka to acknowledge its events.
    public let publishTimeout: Duration

    public init(codec: ImpressionCodec, producer: KafkaProducer, topic: String, experiments: ExperimentStore, publishTimeout: Duration = .seconds(5)) {
        self.codec = codec
        self.producer = producer
        self.topic = topic
        self.experiments = experiments
        self.publishTimeout = publishTimeout
    }

    /// One event of a request body (`Event` in `Schemas/openapi.yaml`).
    public struct Event: Sendable, Decodable {
        public var type: ExperimentEvent.Kind
        public var impressionID: String
        public var position: Int?

        enum CodingKeys: String, CodingKey {
            case type, position
            case impressionID = "impression_id"
        }
    }

    public static let maxEvents = 100

    /// Validates every event first (one bad event refuses the whole batch, so a client never
    /// has to guess which were taken), then publishes them all and waits for Kafka.
    /// - Returns: the number of events accepted.
    public func accept(_ events: [Event], now: Date = Date()) async throws(GatewayError) -> Int {
        guard (1...Self.maxEvents).contains(events.count) else {
            throw .badRequest("events must hold 1 to \(Self.maxEvents) events", code: "invalid_body")
        }
        var messages: [KafkaProducerMessage] = []
        for (index, event) in events.enumerated() {
            let token: ImpressionToken
            do {
                token = try codec.decode(event.impressionID)
            } catch {
                throw .badRequest("events[\(index)].impression_id: \(error)", code: "invalid_event")
            }
            // The team is resolved and the evidence marked here; events outside the credit
            // window are published too (nothing a client sent is lost) and not credited.
            guard let published = ExperimentEvent.make(event.type, token: token, position: event.position, receivedAt: now) else {
                throw .badRequest(
                    "events[\(index)]: a click needs the position of an item of its impression (\(token.positions))",
                    code: "invalid_event")
            }
            // Keyed by impression: one impression's events stay in order on one partition.
            messages.append(KafkaProducerMessage(topic: topic, key: Array(token.id.utf8), value: Array(published.encoded())))
        }
        do {
            try await Deadline.run(timeout: publishTimeout) { [producer, messages] in
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for message in messages { group.addTask { _ = try await producer.sendAndAwait(message) } }
                    try await group.waitForAll()
                }
            }
        } catch {
            throw .unavailable("events could not be published to Kafka: \(error is DeadlineExceeded ? "no acknowledgement within \(publishTimeout)" : "\(error)")", code: "events_unavailable")
        }
        return messages.count
    }

    public func outcome(of experiment: String) async throws(GatewayError) -> ExperimentOutcome {
        do {
            return try await experiments.outcome(of: experiment)
        } catch {
            throw .unavailable("experiment results are unavailable: \(error)", code: "redis_unavailable")
        }
    }
}
