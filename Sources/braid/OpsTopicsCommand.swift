import ArgumentParser
import BraidKafka
import BraidConfig
import BraidWiring

/// `braid ops topics …`.
struct OpsTopicsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "topics", abstract: "Manage Braid's Kafka topics.", subcommands: [OpsTopicsEnsureCommand.self])
}

/// `braid ops topics ensure`: creates missing topics, checks existing ones.
struct OpsTopicsEnsureCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ensure", abstract: "Create the requests, dead-letter and events topics if missing; check the existing ones.",
        discussion: """
            Topics: kafka.requests_topic, kafka.dead_letter_topic, kafka.events_topic. A missing topic is \
            created with --partitions partitions; an existing one is left alone and its partition count \
            printed, with a warning when it differs from --partitions (exit 1 with --strict). The \
            partition count of the requests topic caps how many workers share the work.
            """)

    @OptionGroup var config: ConfigurationOption
    @Option(help: "Partitions of created topics (and expected of existing ones).") var partitions: Int32 = 6
    @Option(help: "Replication factor of created topics.") var replicationFactor: Int32 = 1
    @Flag(help: "Exit 1 when an existing topic has a different partition count.") var strict = false

    func validate() throws {
        guard partitions > 0 else { throw ValidationError("--partitions must be positive") }
        guard replicationFactor > 0 else { throw ValidationError("--replication-factor must be positive") }
    }

    func run() async throws {
        let configuration = try config.loadForService()
        try LibrdkafkaVersion.requireSupported()
        let kafka = configuration.kafka
        let admin = try kafka.makeAdmin()
        var mismatched = 0
        for topic in [kafka.requestsTopic, kafka.deadLetterTopic, kafka.eventsTopic] {
            if try await admin.createTopic(topic, partitions: partitions, replicationFactor: replicationFactor) {
                print("created \(topic): \(partitions) partitions, replication factor \(replicationFactor)")
                continue
            }
            let count = try await admin.partitionCount(of: topic)
            if count == Int(partitions) {
                print("exists  \(topic): \(count) partitions")
            } else {
                mismatched += 1
                print("exists  \(topic): \(count) partitions (expected \(partitions))")
                ProgressBar.write("warning: \(topic) has \(count) partitions, not \(partitions)\n")
            }
        }
        if strict, mismatched > 0 { throw ExitCode(1) }
    }
}
