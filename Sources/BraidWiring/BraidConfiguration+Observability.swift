import BraidConfig
import BraidObservability
import Logging

extension BraidConfiguration {
    /// Logging at `logging.level` and Prometheus metrics, once per process.
    public func bootstrapObservability() {
        Observability.bootstrap(level: logging.level.loggerLevel)
    }
}

extension LogLevel {
    var loggerLevel: Logger.Level {
        switch self {
        case .trace: .trace
        case .debug: .debug
        case .info: .info
        case .notice: .notice
        case .warning: .warning
        case .error: .error
        case .critical: .critical
        }
    }
}
