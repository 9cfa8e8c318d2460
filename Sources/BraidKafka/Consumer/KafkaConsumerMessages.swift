/// The messages of a ``KafkaConsumer``, in order per partition. Ends (returns `nil`) when the
/// consumer closes; throws if the consumer hit a fatal error. Several tasks may iterate at
/// once; each message goes to one of them.
public struct KafkaConsumerMessages: AsyncSequence, Sendable {
    public typealias Element = KafkaConsumerMessage

    let buffer: ConsumerBuffer

    public struct AsyncIterator: AsyncIteratorProtocol {
        let buffer: ConsumerBuffer

        public mutating func next() async throws -> KafkaConsumerMessage? {
            try await buffer.next()
        }
    }

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(buffer: buffer)
    }
}
