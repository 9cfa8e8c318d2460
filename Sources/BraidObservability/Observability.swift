import Logging
import Metrics
import Prometheus
import Synchronization

/// Process-wide logging and metrics set-up, done once at start-up by every `braid` service.
public enum Observability {
    /// The registry behind `/metrics`; swift-metrics calls anywhere in the process land here.
    public static let registry = PrometheusCollectorRegistry()

    /// Bootstraps swift-log (stderr, at `level`) and swift-metrics (Prometheus). Only the
    /// first call in a process takes effect: both systems can be bootstrapped once.
    public static func bootstrap(level: Logger.Level) {
        once.bootstrap(level: level)
    }

    /// Metrics in the Prometheus text format, for `/metrics` endpoints.
    public static func prometheusText() -> String {
        registry.emitToString()
    }

    private static let once = OnceBootstrap()
}

private final class OnceBootstrap: Sendable {
    private let done = Mutex(false)

    func bootstrap(level: Logger.Level) {
        let first = done.withLock { done in
            defer { done = true }
            return !done
        }
        guard first else { return }
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: Observability.registry))
    }
}
