import BraidContracts
import BraidObservability
import Metrics

/// The worker's metrics (Prometheus names): processed requests by kind and outcome, failed
/// attempts, dead letters, processing time, and pauses while a dependency is down.
struct WorkerMetrics: Sendable {
    func processed(_ kind: String, outcome: String) {
        Counter(.workerProcessed, dimensions: [("kind", kind), ("outcome", outcome)]).increment()
    }

    /// An attempt that failed transiently (it may still succeed on retry).
    func failedAttempt() {
        Counter(.workerFailedAttempts).increment()
    }

    func deadLettered(permanent: Bool) {
        Counter(.workerDeadLettered, dimensions: [("cause", permanent ? "permanent" : "retries_exhausted")]).increment()
    }

    func duration(_ elapsed: Duration) {
        Metrics.Timer(.workerProcessingDurationSeconds, preferredDisplayUnit: .seconds).record(duration: elapsed)
    }

    /// A dependency went down (`partitions` paused) or answers again (0).
    func paused(_ dependency: ProcessingFailure.Dependency, partitions: Int) {
        if partitions > 0 {
            Counter(.workerPauses, dimensions: [("dependency", dependency.rawValue)]).increment()
        }
        Gauge(.workerPaused, dimensions: [("dependency", dependency.rawValue)]).record(partitions > 0 ? 1 : 0)
        Gauge(.workerPausedPartitions).record(partitions)
    }

    func probed(_ dependency: ProcessingFailure.Dependency, answered: Bool) {
        Counter(.workerProbes, dimensions: [("dependency", dependency.rawValue), ("result", answered ? "up" : "down")])
            .increment()
    }
}
