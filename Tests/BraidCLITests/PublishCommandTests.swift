import BraidContracts
import BraidCore
import BraidKafka
import BraidTestSupport
import Foundation
import Testing

@Suite("braid publish against the real broker", .integration)
struct PublishCommandTests {
    @Test func publishesValidLinesReportsInvalidOnesAndFailsTheRun() async throws {
        let brokers = try TestEnvironment.kafkaBrokers()
        let topic = TestEnvironment.uniqueName("publish")
        _ = try await KafkaAdmin(brokers: brokers).createTopic(topic, partitions: 3)
        // Through the wire format once: it carries milliseconds, so compare with what it carries.
        let requests = try ["curry rice", "カレー", "miso"].map {
            try PrecomputeRequest.decode(PrecomputeRequest(body: .ranking(.init(ranking: "featured", query: $0))).encoded())
        }
        let lines = [String(decoding: requests[0].encoded(), as: UTF8.self), #"{"schema":"braid.request/v1","kind":"ranking"}"#]
            + requests.dropFirst().map { String(decoding: $0.encoded(), as: UTF8.self) }
        let file = try TestEnvironment.runDirectory().appendingPathComponent("\(topic).jsonl")
        try lines.joined(separator: "\n").write(to: file, atomically: true, encoding: .utf8)

        let result = try BraidBinary.run(
            ["publish", "--file", file.path],
            environment: ["BRAID_KAFKA_BROKERS": brokers, "BRAID_KAFKA_REQUESTS_TOPIC": topic])
        #expect(result.status == 1, "an invalid line fails the run")
        #expect(result.stdout.contains("acknowledged 3, failed 0, invalid 1"), "\(result.stdout)")
        #expect(result.stderr.contains("\(file.path):2:"), "the invalid line is named: \(result.stderr)")

        // The three valid ones are on the topic, keyed by their cache keys.
        let consumer = try KafkaConsumer(configuration: KafkaConsumerConfiguration(
            brokers: brokers, groupID: TestEnvironment.uniqueName("reader"), topics: [topic]))
        var received: [String: [UInt8]] = [:]
        let deadline = Task {
            try await Task.sleep(for: .seconds(30))
            await consumer.close()
        }
        for try await message in consumer.messages {
            received[message.keyString ?? ""] = message.value
            try consumer.storeOffset(message)
            if received.count == 3 { break }
        }
        deadline.cancel()
        await consumer.close()
        #expect(Set(received.keys) == Set(requests.map(\.messageKey)))
        for request in requests {
            #expect(try received[request.messageKey].map { try PrecomputeRequest.decode(Data($0)) } == request)
        }
    }

    @Test(arguments: [
        ["publish"], ["publish", "--ranking", "featured"], ["publish", "--feed", "home"],
        ["publish", "--query", "x", "--feed", "home", "--type", "carousel"],
        ["publish", "--feed", "home", "--type", "no_such_type", "--user", "u1"],
    ])
    func badFlagsAreUsageErrors(arguments: [String]) throws {
        let result = try BraidBinary.run(arguments, environment: ["BRAID_KAFKA_BROKERS": "127.0.0.1:1"])
        #expect(result.status == 2, "\(result.stderr)")
        #expect(!result.stderr.isEmpty)
    }
}
