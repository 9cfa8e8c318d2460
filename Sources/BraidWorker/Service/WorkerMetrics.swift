import Metrics

/// The worker's metrics (Prometheus names): processed requests by kind and outcome, failed
/// attempts, dead letters, processing time, and pauses while a dependency is down.
struct WorkerMetrics: Sendable {
    func processed(_ kind: String, outcome: String) {
        Counter(label: "braid_worker_processed_total", dimensions: [("kind", kind), ("outcome", outcome)]).increment()
    }

    /// An attempt that failed transiently (it may still succeed on retry).
    func failedAttempt() {
        Counter(label: "braid_worker_failed_attempts_total").increment()
    }

    func deadLettered(permanent: Bool) {
        Counter(label: "braid_worker_dead_lettered_total", dimensions: [("cause", permanent ? "permanent" : "retries_exhausted")]).increment()
    }

    func duration(_ elapsed: Duration) {
        Metrics.Timer(label: "braid_worker_processing_duration_seconds", preferredDisplayUnit: .seconds).record(duration: elapsed)
    }

    /// A dependency went down (`partitions` paused) or answers again (0).
    func paused(_ dependency: ProcessingFailure.Dependency, partitions: Int) {
        if partitions > 0 {
            Counter(label: "braid_worker_pauses_total", dimensions: [("dependency", dependency.rawValue)]).increment()
        }
        Gauge(label: "braid_worker_paused", dimensions: [("dependency", dependency.rawValue)]).record(partitions > 0 ? 1 : 0)
        Gauge(label: "braid_worker_paused_partitions").record(partitions)
    }

    func probed(_ dependency: ProcessingFailure.Dependency, answered: Bool) {
        Counter(label: "braid_worker_probes_total", dimensions: [("dependency", dependency.rawValue), ("result", answered ? "up" : "down")])
            .increment()
    }
}
