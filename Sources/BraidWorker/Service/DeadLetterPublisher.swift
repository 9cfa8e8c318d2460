import BraidContracts
import BraidKafka
import Foundation

/// Publishes requests that cannot be processed to the dead-letter topic, unchanged, with
/// why and where from in headers, so a person can read the reason and replay them later
/// (`braid ops dlq replay`).
public struct DeadLetterPublisher: Sendable {
    /// Longest reason kept in a header: reasons quote input, which may be huge or hostile.
    static let maxReasonBytes = 1024

    public let producer: KafkaProducer
    public let topic: String

    public init(producer: KafkaProducer, topic: String) {
        self.producer = producer
        self.topic = topic
    }

    /// Sends and waits for the broker's acknowledgement: the original's offset may be
    /// committed only once its dead letter is safely stored.
    public func publish(_ message: KafkaConsumerMessage, reason: String, attempts: Int, at time: Date = Date()) async throws {
        try await producer.sendAndAwait(Self.deadLetter(of: message, topic: topic, reason: reason, attempts: attempts, at: time))
    }

    /// The dead letter of a message: same key and value, the original headers, and ours.
    static func deadLetter(of message: KafkaConsumerMessage, topic: String, reason: String, attempts: Int, at time: Date) -> KafkaProducerMessage {
        let headers = message.headers.filter { !$0.name.hasPrefix(DeadLetterHeader.prefix) } + [
            KafkaHeader(name: DeadLetterHeader.reason, value: Array(truncated(reason).utf8)),
            KafkaHeader(name: DeadLetterHeader.source, value: Array("\(message.topic)/\(message.partition)/\(message.offset)".utf8)),
            KafkaHeader(name: DeadLetterHeader.attempts, value: Array(String(attempts).utf8)),
            KafkaHeader(name: DeadLetterHeader.failedAt, value: Array(time.formatted(.iso8601).utf8)),
        ]
        return KafkaProducerMessage(topic: topic, key: message.key, value: message.value, headers: headers)
    }

    static func truncated(_ reason: String) -> String {
        guard reason.utf8.count > maxReasonBytes else { return reason }
        var cut = Substring(reason)
        while cut.utf8.count > maxReasonBytes - 3 { cut = cut.dropLast() }
        return cut + "…"
    }
}
