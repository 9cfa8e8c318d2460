import BraidHarness
import Foundation
import Hummingbird
import Logging
import NIOCore
import NIOHTTP1
import ServiceLifecycle

/// A stand-in for an I/O-bound HTTP ranking service (`Schemas/ranking-source.schema.json`)
/// that answers every query after a fixed delay with the same hits, for the worker group's
/// key-ordered vs partition-ordered run. Runs in this process until ``stop()``.
final class SlowRankingService: Sendable {
    let url: String
    private let group: ServiceGroup
    private let task: Task<Void, any Error>

    private init(url: String, group: ServiceGroup, task: Task<Void, any Error>) {
        self.url = url
        self.group = group
        self.task = task
    }

    /// Serves `POST /rank` on 127.0.0.1:`port` and waits until it answers.
    static func start(port: Int, delay: Duration, documents: Int) async throws -> SlowRankingService {
        let hits = (0..<documents).map { #"{"id":"r\#($0)","score":\#(documents - $0),"fields":{"title":"Recipe \#($0)"}}"# }
        let answer = ByteBuffer(string: #"{"total":\#(documents),"hits":[\#(hits.joined(separator: ","))]}"#)
        let router = Router()
        router.post("/rank") { _, _ in
            try await Task.sleep(for: delay)
            return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: answer))
        }
        var logger = Logger(label: "braid.bench.ranking-service")
        logger.logLevel = .warning
        let application = Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: port), serverName: "braid-bench"), logger: logger)
        let group = ServiceGroup(configuration: .init(services: [application], logger: logger))
        let task = Task { try await group.run() }
        let service = SlowRankingService(url: "http://127.0.0.1:\(port)/rank", group: group, task: task)
        do {
            try await Readiness.wait(for: "the slow ranking service", process: nil, timeout: .seconds(30), interval: .milliseconds(100)) {
                let status = try? await HTTPProbe.request(service.url, method: .POST, body: Data("{}".utf8), timeout: .seconds(2)).status
                return status.map { (200..<300).contains($0) } ?? false
            }
        } catch {
            await service.stop()
            throw error
        }
        return service
    }

    func stop() async {
        await group.triggerGracefulShutdown()
        _ = try? await task.value
    }
}
