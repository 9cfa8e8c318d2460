import ArgumentParser

/// `braid bench …`: the measuring side of `make bench`. Each group prints `FIGURE` lines
/// for what it measured and, where the baseline is measured in-process, `RATIO` lines;
/// Deploy/local/bench/<group>.sh runs the external baselines (kcat, redis-benchmark, wrk).
struct BenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Run one benchmark group (use `make bench`, which also measures the baselines).",
        subcommands: [
            PlanBenchCommand.self, RedisGetBenchCommand.self,
            KafkaProduceBenchCommand.self, KafkaConsumeBenchCommand.self,
            WorkerDirectBenchCommand.self, WorkerPublishBenchCommand.self, RankingServiceBenchCommand.self,
        ])
}

/// `braid bench plan`: plan cost at offset 0 vs offset 10⁹.
struct PlanBenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plan", abstract: "Time interleaving plans at offset 0 and offset 10^9 (page size 30).")

    func run() {
        PlanBenchmark.run()
    }
}
