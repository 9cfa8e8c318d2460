import BraidContracts
import Metrics

/// Recording Braid's metrics by name (``MetricName``), so no call site spells one.
extension Counter {
    public convenience init(_ name: MetricName, dimensions: [(String, String)] = []) {
        self.init(label: name.rawValue, dimensions: dimensions)
    }
}

extension Gauge {
    public convenience init(_ name: MetricName, dimensions: [(String, String)] = []) {
        self.init(label: name.rawValue, dimensions: dimensions)
    }
}

extension Metrics.Timer {
    public convenience init(_ name: MetricName, dimensions: [(String, String)] = [], preferredDisplayUnit: TimeUnit) {
        self.init(label: name.rawValue, dimensions: dimensions, preferredDisplayUnit: preferredDisplayUnit)
    }
}
