import BraidKafka
import Foundation

/// Publishes requests that cannot be processed to the dead-letter topic, unchanged, with
/// why and where from in headers, so a person can read the reason and replay them later
/// (`braid ops dlq replay`).
public struct DeadLetterPublisher: Sendable {
    /// Header names on dead-lettered messages.
    public enum Header {
        /// Why the request was dead-lettered (UTF-8 text).
        public static let reason = "braid-dlq-reason"
        /// `<topic>/<partition>/<offset>` of the original message.
        public static let source = "braid-dlq-source"
        /// Processing attempts made.
        public static let attempts = "braid-dlq-attempts"
        /// RFC 3339 time of dead-lettering.
        public static let failedAt = "braid-dlq-failed-at"
    }

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
        let headers = message.headers.filter { !$0.name.hasPrefix("braid-dlq-") } + [
            KafkaHeader(name: Header.reason, value: Array(truncated(reason).utf8)),
            KafkaHeader(name: Header.source, value: Array("\(message.topic)/\(message.partition)/\(message.offset)".utf8)),
            KafkaHeader(name: Header.attempts, value: Array(String(attempts).utf8)),
            KafkaHeader(name: Header.failedAt, value: Array(time.formatted(.iso8601).utf8)),
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
