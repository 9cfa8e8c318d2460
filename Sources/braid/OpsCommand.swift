import ArgumentParser
import BraidKafka
import BraidRuntime

/// `braid ops …`: tools for the people who run Braid.
struct OpsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ops", abstract: "Operations tools.", subcommands: [LagCommand.self])
}

/// `braid ops lag`: how far the workers' consumer group is behind, per partition.
struct LagCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lag", abstract: "Print the consumer group's lag per partition of the requests topic.")

    @OptionGroup var config: ConfigurationOption
    @Option(help: "Consumer group (default: kafka.consumer_group).") var group: String?
    @Option(help: "Topic (default: kafka.requests_topic).") var topic: String?

    func run() async throws {
        let configuration = try config.loadForService()
        try LibrdkafkaVersion.requireSupported()
        let kafka = configuration.kafka
        let admin = try KafkaAdmin(brokers: kafka.brokers, properties: kafka.properties)
        let group = group ?? kafka.consumerGroup
        let topic = topic ?? kafka.requestsTopic
        let partitions = try await admin.lag(group: group, topic: topic)
        print("group \(group), topic \(topic)")
        print(Self.table(partitions))
    }

    /// Right-aligned columns; `-` where the group has committed nothing yet.
    static func table(_ partitions: [KafkaPartitionLag]) -> String {
        let header = ["partition", "committed", "high", "lag"]
        var rows = partitions.sorted { $0.partition < $1.partition }.map { lag in
            [String(lag.partition), lag.committed.map(String.init) ?? "-", String(lag.highWatermark), String(lag.lag)]
        }
        rows.append(["total", "", "", String(partitions.reduce(0) { $0 + $1.lag })])
        let widths = header.indices.map { column in ([header] + rows).map { $0[column].count }.max() ?? 0 }
        return ([header] + rows).map { row in
            row.indices.map { String(repeating: " ", count: widths[$0] - row[$0].count) + row[$0] }.joined(separator: "  ")
        }.joined(separator: "\n")
    }
}
