import ArgumentParser
import BraidConfig
import BraidKafka
import BraidWiring
import Logging
import ServiceLifecycle
import UnixSignals
import BraidCore

/// `braid gateway`: the HTTP API app clients call. Stateless: run as many as needed behind
/// a load balancer.
struct GatewayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gateway",
        abstract: "Serve interleaved search pages and server-driven feeds over HTTP.",
        discussion: "SIGTERM or Ctrl-C: answers /readyz with 503 for gateway.drain_ms, then stops accepting connections, finishes in-flight requests, flushes, exits 0.")

    @OptionGroup var config: ConfigurationOption

    func run() async throws {
        let configuration = try config.loadForService(.gateway)
        try LibrdkafkaVersion.requireSupported()
        let logger = Logger(label: "braid.gateway")
        let tracing = try configuration.bootstrapTracing(command: "gateway")
        let gateway = try GatewayAssembly(configuration: configuration, logger: logger)
        let application = gateway.application { port in
            logger.info("listening", metadata: ["address": "http://\(configuration.gateway.host):\(port)"])
            if configuration.console.enabled, configuration.gateway.adminHost == nil {
                logger.info(
                    "console", metadata: ["address": "http://\(configuration.gateway.host):\(port)/console/", "token_required": "\(!configuration.console.token.isEmpty)"])
            }
        }
        let admin = gateway.adminApplication { port in
            logger.info("admin listening", metadata: ["address": "http://\(configuration.gateway.adminHost ?? configuration.gateway.host):\(port)", "token_required": "\(!configuration.admin.token.isEmpty || !configuration.console.token.isEmpty)"])
        }
        let group = ServiceGroup(
            configuration: .init(
                // The exporter first: it stops last, exporting the spans of the drained requests.
                // The drain last: it stops first, failing /readyz while the servers still serve.
                services: (tracing.map { [$0] } ?? []) + gateway.clients + [application] + (admin.map { [$0] } ?? []) + [gateway.drain],
                gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        try await group.run()
        await gateway.shutdown()
    }
}
