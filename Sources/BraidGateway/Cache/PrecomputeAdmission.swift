import BraidContracts
import BraidCore
import BraidObservability
import Metrics
import Synchronization

/// Which misses earn a stored snapshot (`gateway.admission`): a key (a ranking and query, or a
/// user's component) is computed and stored only once this process has seen it miss
/// `threshold` times lately (``FrequencySketch``); until then its pages are served live, so
/// the long tail of one-off queries and made-up users costs no Redis keys and no worker work.
///
/// Per process: with N gateways a key may need up to N × (threshold − 1) + 1 misses across
/// the cluster before it is admitted. Memory: the sketch's 4 × `sketch_width` bytes.
public final class PrecomputeAdmission: Sendable {
    public let threshold: Int
    private let sketch: Mutex<FrequencySketch>
    private let origin = ContinuousClock.now

    public init(threshold: Int, halvingSeconds: Int, sketchWidth: Int) {
        self.threshold = max(1, threshold)
        self.sketch = Mutex(FrequencySketch(width: sketchWidth, halvingSeconds: Double(halvingSeconds)))
    }

    /// Admits everything: every miss is stored (threshold 1).
    public static let everything = PrecomputeAdmission(threshold: 1, halvingSeconds: 600, sketchWidth: 16)

    /// Records a miss of `key` (of `kind`, for the metric: `query` or `component`) and says
    /// whether it is now frequent enough to be computed and stored.
    public func admit(_ key: String, kind: String) -> Bool {
        let admitted: Bool
        if threshold <= 1 {
            admitted = true
        } else {
            let elapsed = ContinuousClock.now - origin
            let now = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            admitted = sketch.withLock { $0.record(key, now: now) } >= threshold
        }
        Counter(.gatewayAdmission, dimensions: [("kind", kind), ("decision", admitted ? "admitted" : "live_only")])
            .increment()
        return admitted
    }
}
