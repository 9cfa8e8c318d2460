/// The environment variables that tune a run, with their names and defaults.
public struct BenchmarkSettings: Sendable, Equatable {
    /// Partitions of the broker's default topics (`BRAID_PARTITIONS`).
    public var partitions = 6
    public var redisRequests = 200_000
    public var kafkaMessages = 200_000
    public var workerRequests = 5_000
    public var workerRounds = 5
    public var workerOrderRequests = 3_000
    public var workerOrderRounds = 3
    /// Six rounds of 5 s, not two of 10 s: on the shared machine the same side's rate moves
    /// between rounds of one run (BENCHMARKS.md), and the machine's speed drifts within
    /// seconds, so shorter alternations cancel more of it.
    public var gatewaySeconds = 5
    public var gatewayWarmupSeconds = 3
    public var gatewayConnections = 16
    public var gatewayRounds = 6
    public var gatewayColdConnections = 1
    /// Nine, not five: with five, one query's median moves between runs in either direction
    /// by enough to move the ratio noticeably (BENCHMARKS.md).
    public var gatewayColdRounds = 9
    public var gatewayColdSeconds = 2
    /// Redis Cluster's `cluster-node-timeout` for the redis group's cluster, in ms.
    public var clusterNodeTimeoutMs = 2_000
    public var evaluationSeed = "1"
    /// Further `braid experiment simulate` flags, split on whitespace.
    public var evaluationArguments: [String] = []
    /// Corpus sizes of the scale group, in recipes.
    public var scaleSizes = [20_000, 200_000, 1_000_000]
    /// Timed page-1 requests per query, page shape and size.
    public var scaleSamples = 9
    /// Walks to page 50 per deep query and size.
    public var scaleWalks = 3
    /// Timed live-only page-1 requests of the head word per size, for its p99.
    public var scaleHeadSamples = 200
    /// Seconds of the soak's mixed traffic.
    public var soakSeconds = 1_200
    /// Seconds one caller is offered 3× its rate by the fleet group, per kind.
    public var fleetSeconds = 30

    public init() {}

    /// One whole-number variable: its name, what it sets, and its smallest sensible value.
    public struct Knob: Sendable {
        public let name: String
        public let help: String
        let minimum: Int
        let path: any WritableKeyPath<BenchmarkSettings, Int> & Sendable
    }

    public static var knobs: [Knob] {
        [
            Knob(name: "BRAID_PARTITIONS", help: "partitions of the broker's topics", minimum: 1, path: \.partitions),
            Knob(name: "BRAID_BENCH_REDIS_REQUESTS", help: "GETs per redis figure (at least the 50 in flight)", minimum: 50, path: \.redisRequests),
            Knob(name: "BRAID_CLUSTER_NODE_TIMEOUT", help: "cluster-node-timeout of the redis group's cluster, ms", minimum: 100, path: \.clusterNodeTimeoutMs),
            Knob(name: "BRAID_BENCH_KAFKA_MESSAGES", help: "messages of 256 bytes produced and consumed by each side", minimum: 1, path: \.kafkaMessages),
            Knob(name: "BRAID_BENCH_WORKER_REQUESTS", help: "requests per CPU-bound worker measurement", minimum: 1, path: \.workerRequests),
            Knob(name: "BRAID_BENCH_WORKER_ROUNDS", help: "CPU-bound rounds, direct vs one worker", minimum: 1, path: \.workerRounds),
            Knob(name: "BRAID_BENCH_WORKER_ORDER_REQUESTS", help: "requests per I/O-bound worker measurement", minimum: 1, path: \.workerOrderRequests),
            Knob(name: "BRAID_BENCH_WORKER_ORDER_ROUNDS", help: "I/O-bound rounds, key vs partition order", minimum: 1, path: \.workerOrderRounds),
            Knob(name: "BRAID_BENCH_GATEWAY_SECONDS", help: "seconds of each wrk measurement", minimum: 1, path: \.gatewaySeconds),
            Knob(name: "BRAID_BENCH_GATEWAY_WARMUP_SECONDS", help: "seconds of each wrk warm-up", minimum: 1, path: \.gatewayWarmupSeconds),
            Knob(name: "BRAID_BENCH_GATEWAY_CONNECTIONS", help: "wrk connections", minimum: 1, path: \.gatewayConnections),
            Knob(name: "BRAID_BENCH_GATEWAY_ROUNDS", help: "rounds of each pair, in alternating order", minimum: 1, path: \.gatewayRounds),
            Knob(name: "BRAID_BENCH_GATEWAY_COLD_CONNECTIONS", help: "wrk connections for cold pages", minimum: 1, path: \.gatewayColdConnections),
            Knob(name: "BRAID_BENCH_GATEWAY_COLD_ROUNDS", help: "rounds of the cold pages, per query", minimum: 1, path: \.gatewayColdRounds),
            Knob(name: "BRAID_BENCH_GATEWAY_COLD_SECONDS", help: "seconds of each cold-page measurement", minimum: 1, path: \.gatewayColdSeconds),
            Knob(name: "BRAID_BENCH_FLEET_SECONDS", help: "seconds one caller is offered 3× its rate by the fleet group, per kind", minimum: 5, path: \.fleetSeconds),
            Knob(name: "BRAID_BENCH_SOAK_SECONDS", help: "seconds of the soak's mixed traffic", minimum: 60, path: \.soakSeconds),
            Knob(name: "BRAID_BENCH_SCALE_SAMPLES", help: "timed page-1 requests per query, page shape and corpus size", minimum: 1, path: \.scaleSamples),
            Knob(name: "BRAID_BENCH_SCALE_WALKS", help: "walks to page 50 per deep query and corpus size", minimum: 1, path: \.scaleWalks),
            Knob(
                name: "BRAID_BENCH_SCALE_HEAD_SAMPLES", help: "timed live-only page-1 requests of the head word per corpus size (its p99)", minimum: 100,
                path: \.scaleHeadSamples),
        ]
    }

    /// The settings `environment` asks for; a variable that is set but not a whole number of
    /// at least its minimum is an error naming it.
    public init(environment: [String: String]) throws(BenchmarkError) {
        for knob in Self.knobs {
            guard let raw = environment[knob.name], !raw.isEmpty else { continue }
            guard let value = Int(raw), value >= knob.minimum else {
                throw BenchmarkError("\(knob.name)=\(raw): expected a whole number of at least \(knob.minimum)")
            }
            self[keyPath: knob.path] = value
        }
        if let seed = environment["BRAID_BENCH_EVALUATION_SEED"], !seed.isEmpty {
            evaluationSeed = seed
        }
        evaluationArguments = (environment["BRAID_BENCH_EVALUATION_ARGS"] ?? "").split(whereSeparator: \.isWhitespace).map(String.init)
        if let raw = environment["BRAID_BENCH_SCALE_SIZES"], !raw.isEmpty {
            let sizes = raw.split(separator: ",", omittingEmptySubsequences: false).map { Int($0.filter { $0 != " " }) }
            guard !sizes.isEmpty, sizes.allSatisfy({ $0.map { (Self.scaleSizeRange).contains($0) } == true }) else {
                throw BenchmarkError(
                    "BRAID_BENCH_SCALE_SIZES=\(raw): expected comma-separated whole numbers of recipes, each 10000 to 10000000")
            }
            scaleSizes = Array(Set(sizes.compactMap { $0 })).sorted()
        }
    }

    /// Sizes the scale group takes: page 50 of 20 of its deep queries needs 1,000 matches (of
    /// `curry rice`, about a fifth of the recipes), and `braid seed` writes at most 10,000,000.
    static let scaleSizeRange = 10_000...10_000_000

    /// The variables and their defaults, for `braid-dev bench --help`.
    public static var help: String {
        let defaults = BenchmarkSettings()
        var lines = knobs.map { "\($0.name) (\(defaults[keyPath: $0.path])): \($0.help)" }
        lines.append("BRAID_BENCH_EVALUATION_SEED (1): --seed of braid experiment simulate")
        lines.append("BRAID_BENCH_EVALUATION_ARGS (none): further flags of braid experiment simulate")
        lines.append("BRAID_BENCH_SCALE_SIZES (20000,200000,1000000): corpus sizes of the scale group, comma-separated")
        lines.append("BRAID (the braid next to braid-dev): the braid binary the groups run")
        return lines.joined(separator: "\n")
    }
}
