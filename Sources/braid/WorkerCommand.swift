import ArgumentParser
import BraidConfig
import BraidKafka
import BraidWiring
import Logging
import ServiceLifecycle
import UnixSignals

/// `braid worker`: one precompute worker. Start more processes to scale (up to the
/// partition count of the requests topic); they share the work through the consumer group.
struct WorkerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "worker",
        abstract: "Consume precompute requests and materialize rankings and feed components into Redis.",
        discussion: "SIGTERM or Ctrl-C: stops fetching, finishes in-flight requests, commits, leaves the group, exits 0.")

    @OptionGroup var config: ConfigurationOption

    func run() async throws {
        let configuration = try config.loadForService(.worker)
        try LibrdkafkaVersion.requireSupported()
        let logger = Logger(label: "braid.worker")
        logger.info("starting", metadata: ["librdkafka": "\(LibrdkafkaVersion.loaded)", "group": "\(configuration.kafka.consumerGroup)"])
        let tracing = try configuration.bootstrapTracing(command: "worker")
        let worker = try WorkerAssembly(configuration: configuration, logger: logger)
        // The exporter first: it stops last, exporting the spans of the finished requests.
        let group = ServiceGroup(
            configuration: .init(
                services: (tracing.map { [$0] } ?? []) + worker.services, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        try await group.run()
        await worker.shutdown()
    }
}
