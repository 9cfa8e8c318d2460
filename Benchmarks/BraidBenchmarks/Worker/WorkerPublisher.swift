import BraidConfig
import BraidKafka
import BraidPrecompute
import BraidWiring
import Foundation

/// Publishes the worker benchmark's requests to the requests topic, through the producer
/// the product builds (BraidWiring), for running `braid worker` processes to materialize.
enum WorkerPublisher {
    static func publish(_ configuration: BraidConfiguration, requests: Int) async throws {
        let producer = try configuration.kafka.makeProducer(clientID: "braid-bench")
        let publisher = RequestPublisher(producer: producer, topic: configuration.kafka.requestsTopic)
        for request in WorkerRequests.make(count: requests, at: Date()) {
            try await publisher.send(request)
        }
        await producer.shutdown()
        guard producer.deliveryCounts.delivered == requests else {
            throw BenchmarkError("only \(producer.deliveryCounts.delivered) of \(requests) requests were acknowledged")
        }
    }
}
