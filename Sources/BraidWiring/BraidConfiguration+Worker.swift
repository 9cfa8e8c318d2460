import BraidConfig
import BraidCore
import BraidWorker

extension BraidConfiguration {
    /// The request worker's settings from the `worker` section.
    public var workerConfiguration: PrecomputeWorker.Configuration {
        PrecomputeWorker.Configuration(
            concurrency: worker.concurrency,
            ordering: worker.ordering == .key ? .key : .partition,
            readAhead: worker.readAhead,
            retry: RetryPolicy(maxAttempts: worker.maxAttempts, initialBackoff: worker.retryBackoff),
            pauseAfterFailures: worker.pauseAfterFailures,
            probe: Backoff(initial: worker.probeBackoff, maximum: worker.probeMaxBackoff))
    }
}
