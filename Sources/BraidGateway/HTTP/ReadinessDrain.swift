import BraidCore
import Logging
import ServiceLifecycle

/// The first service of a gateway to stop: told to stop, it turns `/readyz` to 503 and waits
/// `duration` before returning, while the HTTP server still serves. A balancer that checks
/// `/readyz` notices and sends the gateway nothing new; only then does the server stop
/// accepting connections and finish what is in flight (`ServiceGroup` stops its services in
/// reverse order, each after the one before has returned: this one goes last in the list).
public struct ReadinessDrain: Service {
    let draining: Readiness.Draining
    let duration: Duration
    let logger: Logger

    public init(readiness: Readiness, duration: Duration, logger: Logger = Logger(label: "braid.gateway")) {
        self.draining = readiness.draining
        self.duration = duration
        self.logger = logger
    }

    public func run() async throws {
        // Returns when the group shuts down gracefully (or is cancelled: then no wait either).
        try? await gracefulShutdown()
        draining.begin()
        guard duration > .zero, !Task.isCancelled else { return }
        logger.info("draining: /readyz answers 503 before the server stops", metadata: ["drain_ms": "\(duration.wholeMilliseconds)"])
        try? await Task.sleep(for: duration)
    }
}
