import BraidExperiments
import Logging
import ServiceLifecycle
import Synchronization

/// Claims every layout experiment's design in Redis once the gateway runs
/// (``LayoutExperimentStore/claim(_:)``): retried while Redis cannot be reached (from 50 ms,
/// doubling up to every second);
/// a design that differs from the stored one stops the gateway, naming the experiment. Until
/// every design is claimed, `/readyz` says so (``Status``), so a balancer sends no traffic to a
/// gateway that may yet refuse its configuration.
public struct LayoutDesignClaim: Service {
    /// Whether every design has been claimed.
    public final class Status: Sendable {
        private let claimed = Mutex(false)

        public init() {}

        public var isClaimed: Bool { claimed.withLock { $0 } }
        func markClaimed() { claimed.withLock { $0 = true } }
    }

    let designs: [LayoutExperimentDesign]
    let store: LayoutExperimentStore
    let status: Status
    let logger: Logger

    public init(designs: [LayoutExperimentDesign], store: LayoutExperimentStore, status: Status = Status(), logger: Logger) {
        self.designs = designs
        self.store = store
        self.status = status
        self.logger = logger
    }

    /// Returns only at shutdown or with the error that stops the gateway.
    public func run() async throws {
        try await claimAll()
        try? await gracefulShutdown()
    }

    /// Claims every design, retrying while Redis cannot be reached; returns once all are claimed
    /// (or the task is cancelled), throws ``LayoutExperimentStore/DesignChanged``.
    public func claimAll() async throws {
        var pending = designs
        // From 50 ms: a gateway that just started finds its Redis connections still opening,
        // and is not ready until this is done.
        var backoff = Duration.milliseconds(50)
        while !pending.isEmpty, !Task.isCancelled, !Task.isShuttingDownGracefully {
            do {
                try await store.claim(pending[0])
                pending.removeFirst()
            } catch let error as LayoutExperimentStore.DesignChanged {
                logger.critical("\(error)")
                throw error
            } catch {
                logger.log(
                    level: backoff < .seconds(1) ? .debug : .warning, "could not check a layout experiment's design; retrying",
                    metadata: ["error": "\(error)"])
                try? await Task.sleep(for: backoff)
                backoff = min(backoff * 2, .seconds(1))
            }
        }
        if pending.isEmpty { status.markClaimed() }
    }
}
