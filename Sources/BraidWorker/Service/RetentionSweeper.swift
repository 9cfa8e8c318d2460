import BraidContracts
import BraidCore
import BraidObservability
import BraidPrecompute
import BraidRedis
import Foundation
import Logging
import Metrics
import ServiceLifecycle

/// Runs ``RetentionSweep`` about once per `interval` across the fleet: every worker tries each
/// interval, and only the one that takes the lease (`<prefix>:{retention}:lease`, held for one
/// interval) sweeps. A lease lost to eviction costs at most a second sweep, which deletes nothing.
public struct RetentionSweeper: Service {
    let sweep: RetentionSweep
    let interval: Duration
    let logger: Logger
    private let owner = UUID().uuidString

    public init(sweep: RetentionSweep, interval: Duration, logger: Logger = Logger(label: "braid.worker.retention")) {
        self.sweep = sweep
        self.interval = interval
        self.logger = logger
    }

    /// Returns only at shutdown (a service that returns would stop the whole group).
    public func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                await sweepIfOurs()
                try? await Task.sleep(for: interval)
            }
        }
    }

    /// Sweeps when this worker takes the interval's lease. Returns the outcome, or nil when
    /// another worker holds the lease or the sweep failed (logged and counted).
    @discardableResult
    public func sweepIfOurs() async -> RetentionSweep.Outcome? {
        do {
            let taken = try await sweep.redis.set(
                sweep.keys.retentionLease, to: .string(owner), expiration: .milliseconds(Int(interval.wholeMilliseconds)),
                condition: .ifNotExists)
            guard taken else { return nil }
            let started = ContinuousClock.now
            let outcome = try await sweep.sweep()
            Counter(.workerRetentionSweeps, dimensions: [("outcome", "done")]).increment()
            Counter(.workerRetentionDeleted).increment(by: outcome.deleted)
            logger.info("retention sweep", metadata: [
                "examined": "\(outcome.examined)", "deleted": "\(outcome.deleted)",
                "ms": "\((ContinuousClock.now - started).wholeMilliseconds)",
            ])
            return outcome
        } catch {
            Counter(.workerRetentionSweeps, dimensions: [("outcome", "failed")]).increment()
            logger.warning("retention sweep failed; expired walk records and impression states wait for the next", metadata: [
                "error": "\(error)",
            ])
            return nil
        }
    }
}
