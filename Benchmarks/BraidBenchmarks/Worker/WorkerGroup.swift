import BraidConfig
import BraidHarness
import Foundation

/// Worker throughput, in two parts.
///
/// 1. CPU-bound (SQLite source): ranking materializations per second through Kafka and one
///    `braid worker` ÷ the same work (source query + Redis write, same requests, same
///    concurrency) done directly in this process without Kafka. Measured in ROUNDS rounds in
///    alternating order (direct then Kafka, Kafka then direct, ...) so drift on the shared
///    machine hits both sides alike; RATIO is the median of the rounds' ratios. Also prints
///    the rate with 2 workers (once).
/// 2. I/O-bound (an HTTP ranking source that answers after 5 ms): one partition, one worker,
///    worker.concurrency 16, worker.ordering key ÷ partition, same requests; ORDER_ROUNDS
///    rounds in alternating order, RATIO the median of the rounds' ratios.
///
/// The Kafka side's clock runs from the first materialization a poll of the workers' metrics
/// sees to the last (``WorkerThroughput``).
struct WorkerGroup {
    let context: BenchmarkContext

    func run() async throws {
        let settings = context.settings
        let tag = context.tag
        let corpus = context.run.file("worker-corpus.sqlite")
        try await context.seed(corpus)
        let common = [
            "BRAID_REDIS_URL": context.redis.url, "BRAID_KAFKA_BROKERS": context.broker.brokers,
            "BRAID_SEARCH_SQLITE_PATH": corpus.path, "BRAID_LOGGING_LEVEL": "warning",
        ]
        let throughput = WorkerThroughput(context: context)
        /// Publishes to `topic` with Redis key prefix `prefix`; the workers' rate.
        func throughKafka(_ topic: String, prefix: String, count: Int, ports: [Int]) async throws -> Int {
            let configuration = try load(common.merging(["BRAID_KAFKA_REQUESTS_TOPIC": topic, "BRAID_REDIS_KEY_PREFIX": prefix]) { $1 })
            return try await throughput.throughKafka(configuration, count: count, ports: ports)
        }

        // 1. CPU-bound: direct vs through Kafka, alternating.
        let cpuTopic = "bench.requests.\(tag).cpu"
        try await context.broker.createTopic(cpuTopic, partitions: 6)
        let cpu = try await startWorker("cpu", topic: cpuTopic, group: "bench-workers-\(tag)-cpu", common, ["BRAID_REDIS_KEY_PREFIX": "bench-kafka-\(tag)"])
        let direct = try load(common.merging(["BRAID_REDIS_KEY_PREFIX": "bench-direct-\(tag)"]) { $1 })
        var ratios: [Double] = []
        for round in 1...settings.workerRounds {
            let directRate: Int
            let kafkaRate: Int
            if round % 2 == 1 {
                directRate = try await WorkerDirect.materializationsPerSecond(direct, requests: settings.workerRequests)
                kafkaRate = try await throughKafka(cpuTopic, prefix: "bench-kafka-\(tag)", count: settings.workerRequests, ports: [cpu.port])
            } else {
                kafkaRate = try await throughKafka(cpuTopic, prefix: "bench-kafka-\(tag)", count: settings.workerRequests, ports: [cpu.port])
                directRate = try await WorkerDirect.materializationsPerSecond(direct, requests: settings.workerRequests)
            }
            Report.figure("worker.round\(round).direct.materializations_per_s", directRate)
            Report.figure("worker.round\(round).kafka_1_worker.materializations_per_s", kafkaRate)
            ratios.append(Double(kafkaRate) / Double(directRate))
        }
        await cpu.service.stop()
        // Two workers on the same two cores, once (CPU-bound: the broker and the publisher share them).
        let twoTopic = "bench.requests.\(tag).two"
        try await context.broker.createTopic(twoTopic, partitions: 6)
        let twoA = try await startWorker("two-a", topic: twoTopic, group: "bench-workers-\(tag)-two", common, ["BRAID_REDIS_KEY_PREFIX": "bench-two-\(tag)"])
        let twoB = try await startWorker("two-b", topic: twoTopic, group: "bench-workers-\(tag)-two", common, ["BRAID_REDIS_KEY_PREFIX": "bench-two-\(tag)"])
        try await Task.sleep(for: .seconds(2))  // a late join would rebalance once more
        let two = try await throughKafka(twoTopic, prefix: "bench-two-\(tag)", count: settings.workerRequests, ports: [twoA.port, twoB.port])
        await twoA.service.stop()
        await twoB.service.stop()
        Report.figure("worker.kafka.2_workers.materializations_per_s", two)
        Report.ratio("worker.materialize.vs_direct", Format.fixed(Statistics.median(ratios), 3))

        // 2. I/O-bound: key-ordered vs partition-ordered, one partition, one worker each.
        let source = try await SlowRankingService.start(port: try Ports.free(), delay: .milliseconds(5), documents: 30)
        let order = common.merging([
            "BRAID_SEARCH_SOURCE": "http", "BRAID_SEARCH_HTTP_URL": source.url, "BRAID_WORKER_CONCURRENCY": "16",
        ]) { $1 }
        for mode in ["partition", "key"] {
            try await context.broker.createTopic("bench.requests.\(tag).\(mode)", partitions: 1)
        }
        let partition = try await startWorker(
            "partition", topic: "bench.requests.\(tag).partition", group: "bench-workers-\(tag)-partition", order,
            ["BRAID_WORKER_ORDERING": "partition", "BRAID_REDIS_KEY_PREFIX": "bench-partition-\(tag)"])
        let key = try await startWorker(
            "key", topic: "bench.requests.\(tag).key", group: "bench-workers-\(tag)-key", order,
            ["BRAID_WORKER_ORDERING": "key", "BRAID_REDIS_KEY_PREFIX": "bench-key-\(tag)"])
        func partitionRate() async throws -> Int {
            try await throughKafka(
                "bench.requests.\(tag).partition", prefix: "bench-partition-\(tag)", count: settings.workerOrderRequests, ports: [partition.port])
        }
        func keyRate() async throws -> Int {
            try await throughKafka("bench.requests.\(tag).key", prefix: "bench-key-\(tag)", count: settings.workerOrderRequests, ports: [key.port])
        }
        var orderRatios: [Double] = []
        for round in 1...settings.workerOrderRounds {
            let partitionOrdered: Int
            let keyOrdered: Int
            if round % 2 == 1 {
                partitionOrdered = try await partitionRate()
                keyOrdered = try await keyRate()
            } else {
                keyOrdered = try await keyRate()
                partitionOrdered = try await partitionRate()
            }
            Report.figure("worker.round\(round).partition_ordered.materializations_per_s", partitionOrdered)
            Report.figure("worker.round\(round).key_ordered.materializations_per_s", keyOrdered)
            orderRatios.append(Double(keyOrdered) / Double(partitionOrdered))
        }
        await partition.service.stop()
        await key.service.stop()
        await source.stop()
        Report.ratio("worker.key_ordered.vs_partition_ordered", Format.fixed(Statistics.median(orderRatios), 3))
    }

    /// Starts `braid worker` `name` on `topic` in `group` and waits until it has been
    /// assigned a partition of it (not timed: joining takes about 3 s on the local broker).
    private func startWorker(
        _ name: String, topic: String, group: String, _ base: [String: String], _ extra: [String: String]
    ) async throws -> (service: BraidService, port: Int) {
        let port = try Ports.free()
        let environment = base.merging([
            "BRAID_LOGGING_LEVEL": "info", "BRAID_KAFKA_REQUESTS_TOPIC": topic, "BRAID_KAFKA_CONSUMER_GROUP": group,
            "BRAID_KAFKA_EVENTS_CONSUMER_GROUP": "\(group)-events", "BRAID_WORKER_METRICS_PORT": "\(port)",
        ]) { $1 }.merging(extra) { $1 }
        let service = try await BraidService.worker(
            in: context.run, name: "bench-worker-\(name)", environment: environment, assignedFrom: topic, binary: context.braid)
        return (service, port)
    }

    /// The configuration a `braid` process would load with these variables on top of ours.
    private func load(_ overrides: [String: String]) throws -> BraidConfiguration {
        let configuration = try ConfigurationLoader.load(file: nil, environment: ProcessInfo.processInfo.environment.merging(overrides) { $1 })
        try configuration.validate()
        return configuration
    }
}
