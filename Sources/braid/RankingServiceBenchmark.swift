import ArgumentParser
import Foundation
import Hummingbird
import Logging
import ServiceLifecycle
import UnixSignals

/// `braid bench ranking-service`: a stand-in for an I/O-bound HTTP ranking service
/// (`Schemas/ranking-source.schema.json`) that answers every query after a fixed delay with
/// the same hits, for the worker benchmark's key-ordered vs partition-ordered run. Runs
/// until SIGTERM or Ctrl-C.
struct RankingServiceBenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ranking-service", abstract: "Serve POST /rank after a fixed delay (a slow ranking service for benchmarks).")

    @Option(help: "Address to listen on.") var host = "127.0.0.1"
    @Option(help: "Port to listen on.") var port = 8081
    @Option(help: "Milliseconds before each answer.") var delayMs = 5
    @Option(help: "Hits in each answer.") var documents = 30

    func validate() throws {
        guard delayMs >= 0 else { throw ValidationError("--delay-ms must not be negative") }
        guard (0...1000).contains(documents) else { throw ValidationError("--documents must be 0-1000") }
    }

    func run() async throws {
        let hits = (0..<documents).map { #"{"id":"r\#($0)","score":\#(documents - $0),"fields":{"title":"Recipe \#($0)"}}"# }
        let answer = ByteBuffer(string: #"{"total":\#(documents),"hits":[\#(hits.joined(separator: ","))]}"#)
        let delay = Duration.milliseconds(delayMs)
        let router = Router()
        router.post("/rank") { _, _ in
            try await Task.sleep(for: delay)
            return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: answer))
        }
        var logger = Logger(label: "braid.bench.ranking-service")
        logger.logLevel = .warning
        let application = Application(
            router: router, configuration: .init(address: .hostname(host, port: port), serverName: "braid-bench"), logger: logger)
        let group = ServiceGroup(
            configuration: .init(services: [application], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        try await group.run()
    }
}
