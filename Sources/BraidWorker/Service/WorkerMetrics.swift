import Metrics

/// The worker's metrics (Prometheus names): processed requests by kind and outcome, failed
/// attempts, dead letters, and processing time.
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
}
