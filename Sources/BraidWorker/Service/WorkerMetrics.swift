import BraidContracts
import BraidObservability
import Metrics
import Synchronization

/// The worker's metrics (Prometheus names): processed requests by kind and outcome, failed
/// attempts, dead letters, processing time, and pauses while a dependency is down.
struct WorkerMetrics: Sendable {
    /// Requests this process took to a stored outcome (written or stale), for its last log line:
    /// the Prometheus counter ends with the process, and a rolling restart sums these to find
    /// requests processed twice.
    final class Tally: Sendable {
        private let count = Atomic<Int>(0)
        var value: Int { count.load(ordering: .relaxed) }
        func add() { count.add(1, ordering: .relaxed) }
    }

    let tally = Tally()

    func processed(_ kind: String, outcome: String) {
        Counter(.workerProcessed, dimensions: [("kind", kind), ("outcome", outcome)]).increment()
        tally.add()
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
