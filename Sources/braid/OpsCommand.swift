import ArgumentParser
import BraidKafka
import BraidConfig
import BraidWiring

/// `braid ops …`: tools for the people who run Braid.
struct OpsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ops", abstract: "Operations tools.",
        discussion: """
            Every tool reads the same configuration as the services (--config FILE, BRAID_* variables).
            Exit status: 0 success, 1 failure (or a check that did not pass), 2 usage error.
            """,
        subcommands: [LagCommand.self, OpsSnapshotCommand.self, OpsDLQCommand.self, OpsTopicsCommand.self, OpsFutureCommand.self, OpsRetentionCommand.self])
}

/// `braid ops lag`: how far the workers' consumer group is behind, per partition.
struct LagCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lag", abstract: "Print the consumer group's lag per partition of the requests topic, and a suggested worker count.",
        discussion: """
            Suggested workers = min(partitions, max(1, ceil(total lag / --lag-per-worker))): one worker \
            per --lag-per-worker messages of backlog, at least one, and never more than the topic has \
            partitions (extra members of the group would sit idle).
            """)

    @OptionGroup var config: ConfigurationOption
    @Option(help: "Consumer group (default: kafka.consumer_group).") var group: String?
    @Option(help: "Topic (default: kafka.requests_topic).") var topic: String?
    @Option(help: "Backlog one worker is expected to absorb, in messages (for the suggested worker count).")
    var lagPerWorker: Int = 1_000

    func validate() throws {
        guard lagPerWorker > 0 else { throw ValidationError("--lag-per-worker must be positive") }
    }

    func run() async throws {
        let configuration = try config.loadForService()
        try LibrdkafkaVersion.requireSupported()
        let kafka = configuration.kafka
        let admin = try kafka.makeAdmin()
        let group = group ?? kafka.consumerGroup
        let topic = topic ?? kafka.requestsTopic
        let partitions = try await admin.lag(group: group, topic: topic)
        print("group \(group), topic \(topic)")
        print(Self.table(partitions))
        let total = partitions.reduce(0) { $0 + $1.lag }
        let suggested = Self.suggestedWorkers(totalLag: total, partitions: partitions.count, lagPerWorker: lagPerWorker)
        print("suggested workers: \(suggested) (min(\(partitions.count) partitions, max(1, ceil(\(total) / \(lagPerWorker)))))")
    }

    /// min(partitions, max(1, ceil(totalLag / lagPerWorker))).
    static func suggestedWorkers(totalLag: Int64, partitions: Int, lagPerWorker: Int) -> Int {
        let perWorker = Int64(max(lagPerWorker, 1))
        let wanted = Int((max(totalLag, 0) + perWorker - 1) / perWorker)
        return min(max(partitions, 1), max(1, wanted))
    }

    /// Right-aligned columns; `-` where the group has committed nothing yet.
    static func table(_ partitions: [KafkaPartitionLag]) -> String {
        let header = ["partition", "committed", "high", "lag"]
        var rows = partitions.sorted { $0.partition < $1.partition }.map { lag in
            [String(lag.partition), lag.committed.map(String.init) ?? "-", String(lag.highWatermark), String(lag.lag)]
        }
        rows.append(["total", "", "", String(partitions.reduce(0) { $0 + $1.lag })])
        return OpsTable.render([header] + rows)
    }
}

/// Plain-text tables of the ops tools.
enum OpsTable {
    /// Columns separated by two spaces: right-aligned, except those in `leftAligned`.
    static func render(_ rows: [[String]], leftAligned: Set<Int> = []) -> String {
        guard let first = rows.first else { return "" }
        let widths = first.indices.map { column in rows.map { $0.indices.contains(column) ? $0[column].count : 0 }.max() ?? 0 }
        return rows.map { row in
            row.indices.map { column in
                let padding = String(repeating: " ", count: max(widths[column] - row[column].count, 0))
                if leftAligned.contains(column) { return column == row.count - 1 ? row[column] : row[column] + padding }
                return padding + row[column]
            }.joined(separator: "  ")
        }.joined(separator: "\n")
    }
}
