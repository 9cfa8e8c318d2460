import ArgumentParser
import BraidConfig
import BraidContracts
import BraidCore
import BraidKafka
import BraidPrecompute
import BraidWiring
import Foundation

/// `braid publish`: precompute requests for people — one from flags, or many from a JSON
/// Lines file of `Schemas/request.schema.json` messages.
struct PublishCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "publish",
        abstract: "Publish precompute requests to the requests topic.",
        discussion: """
            One ranking:   braid publish --ranking featured --query "curry rice"
            One component: braid publish --feed home --type recommended_recipes --user u42
            Many:          braid publish --file requests.jsonl   (invalid lines are reported and not sent)
            Exits 0 only when every request was acknowledged by the broker.
            """)

    @OptionGroup var config: ConfigurationOption
    @Option(help: "JSON Lines file of requests.") var file: String?
    @Option(help: "Secondary ranking to materialize.") var ranking: String?
    @Option(help: "Query of the ranking.") var query: String?
    @Option(help: "Documents in the snapshot (default: the ranking's configured size).") var size: Int?
    @Option(help: "Feed of the component.") var feed: String?
    @Option(help: "Component type, e.g. recommended_recipes.") var type: String?
    @Option(help: "Component scope: user id.") var user: String?
    @Option(help: "Component scope: segment.") var segment: String?
    @Option(help: "Component scope: category.") var category: String?
    @Option(help: "Lifetime in Redis (default: configured).") var ttl: Int?

    func validate() throws {
        let modes = [file != nil, ranking != nil || query != nil, feed != nil || type != nil].filter { $0 }.count
        guard modes == 1 else { throw ValidationError("give exactly one of --file, --ranking/--query, or --feed/--type") }
    }

    func run() async throws {
        let configuration = try config.loadForService()
        try LibrdkafkaVersion.requireSupported()
        let requests: [PrecomputeRequest]
        var invalid = 0
        if let file {
            (requests, invalid) = try Self.readRequests(file)
        } else {
            requests = [try singleRequest()]
        }
        let producer = try configuration.kafka.makeProducer(clientID: "braid-publish")
        let publisher = RequestPublisher(producer: producer, topic: configuration.kafka.requestsTopic)
        let progress = ProgressBar(name: "publish")
        // With tracing on, each request is a root span whose context travels in its headers;
        // the exporter is flushed before the command exits.
        try await withTracingExporter(try configuration.bootstrapTracing(command: "publish")) {
            for (index, request) in requests.enumerated() {
                try await publisher.send(request)
                if requests.count > 1 { progress.update("sent", done: index + 1, total: requests.count) }
            }
            await producer.shutdown()  // flushes: every delivery report is in after this
        }
        progress.finish()
        let counts = producer.deliveryCounts
        let unflushed = requests.count - counts.delivered - counts.failed
        print("acknowledged \(counts.delivered), failed \(counts.failed + unflushed), invalid \(invalid) (topic \(configuration.kafka.requestsTopic))")
        if counts.delivered != requests.count || invalid > 0 { throw ExitCode(1) }
    }

    private func singleRequest() throws -> PrecomputeRequest {
        let body: PrecomputeRequest.Body
        if let ranking {
            guard let query else { throw ValidationError("--ranking needs --query") }
            body = .ranking(.init(ranking: ranking, query: query, size: size))
        } else if let query {
            body = .ranking(.init(ranking: ranking ?? "featured", query: query, size: size))
        } else {
            guard let feed, let type else { throw ValidationError("--feed needs --type (and --type needs --feed)") }
            guard let componentType = ComponentType(rawValue: type) else {
                throw ValidationError("--type must be one of \(ComponentType.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            body = .component(.init(feed: feed, type: componentType, scope: ComponentScope(user: user, segment: segment, category: category)))
        }
        // Through the wire format and back: flags get exactly the checks a message gets.
        do {
            return try PrecomputeRequest.decode(PrecomputeRequest(body: body, ttlSeconds: ttl).encoded())
        } catch {
            throw ValidationError("invalid request: \(error.reason)")
        }
    }

    /// Valid requests of a JSON Lines file; invalid lines are reported on stderr and counted.
    static func readRequests(_ path: String) throws -> ([PrecomputeRequest], invalid: Int) {
        guard let data = FileManager.default.contents(atPath: path) else { throw ValidationError("cannot read \(path)") }
        var requests: [PrecomputeRequest] = []
        var invalid = 0
        for (number, line) in data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).enumerated() {
            guard line.contains(where: { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\r") }) else { continue }
            do {
                requests.append(try PrecomputeRequest.decode(Data(line)))
            } catch {
                invalid += 1
                ProgressBar.write("\(path):\(number + 1): \(error.reason)\n")
            }
        }
        return (requests, invalid)
    }
}
