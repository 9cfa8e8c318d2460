import BraidKafka
import Foundation

/// What a topic holds, read without joining a consumer group: how many messages (dead
/// letters, usually) and the messages themselves.
public enum TopicContents {
    /// Messages stored in `topic`: the sum of its partitions' high watermarks.
    public static func count(_ topic: String, brokers: String) async throws -> Int {
        try await KafkaAdmin(brokers: brokers).lag(group: TestEnvironment.uniqueName("count"), topic: topic)
            .reduce(0) { $0 + Int($1.highWatermark) }
    }

    /// Waits until `topic` holds at least `count` messages, polling every `interval`; returns
    /// whether it did within `timeout`.
    public static func wait(
        for count: Int, in topic: String, brokers: String, timeout: Duration, interval: Duration = .milliseconds(250)
    ) async throws -> Bool {
        let deadline = ContinuousClock.now + timeout
        while try await self.count(topic, brokers: brokers) < count {
            guard ContinuousClock.now < deadline else { return false }
            try await Task.sleep(for: interval)
        }
        return true
    }

    /// Every message `topic` holds, by partition and offset.
    public static func read(_ topic: String, brokers: String) async throws -> [KafkaConsumerMessage] {
        let admin = try KafkaAdmin(brokers: brokers, timeoutMilliseconds: 30_000)
        return try await admin.tail(topic: topic, perPartition: Int(Int32.max)).messages
    }
}
