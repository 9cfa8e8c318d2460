import BraidContracts
import BraidCore
import BraidObservability
import Metrics
import Synchronization

/// Which misses earn a stored snapshot (`gateway.admission`): a key (a ranking and query, or a
/// user's component) is computed and stored only once it has been seen to miss `threshold`
/// times lately; until then its pages are served live, so the long tail of one-off queries and
/// made-up users costs no Redis keys and no worker work.
///
/// With ``SharedSightings`` (`gateway.admission.shared`, the default) the sightings are the
/// fleet's: a key seen once on each of three gateways counts three. Without it, or while
/// Redis fails (counted in `braid_gateway_admission_shared_unavailable_total`), this process's
/// own sketch (``FrequencySketch``, always kept) decides: with N gateways a key may then need up
/// to N × (threshold − 1) + 1 misses. Memory: the local sketch's 4 × `sketch_width` bytes.
public final class PrecomputeAdmission: Sendable {
    public let threshold: Int
    private let sketch: Mutex<FrequencySketch>
    private let shared: SharedSightings?
    private let origin = ContinuousClock.now

    public init(threshold: Int, halvingSeconds: Int, sketchWidth: Int, shared: SharedSightings? = nil) {
        self.threshold = max(1, threshold)
        self.sketch = Mutex(FrequencySketch(width: sketchWidth, halvingSeconds: Double(halvingSeconds)))
        self.shared = shared
    }

    /// Admits everything: every miss is stored (threshold 1).
    public static let everything = PrecomputeAdmission(threshold: 1, halvingSeconds: 600, sketchWidth: 16)

    /// Records a miss of `key` (of `kind`, for the metric: `query` or `component`) and says
    /// whether it is now frequent enough to be computed and stored.
    public func admit(_ key: String, kind: String) async -> Bool {
        let admitted: Bool
        if threshold <= 1 {
            admitted = true
        } else {
            let now = (ContinuousClock.now - origin).inSeconds
            let local = sketch.withLock { $0.record(key, now: now) }
            if let shared {
                do {
                    admitted = try await shared.record(key) >= threshold
                } catch {
                    Counter(.gatewayAdmissionSharedUnavailable, dimensions: [("kind", kind)]).increment()
                    admitted = local >= threshold
                }
            } else {
                admitted = local >= threshold
            }
        }
        Counter(.gatewayAdmission, dimensions: [("kind", kind), ("decision", admitted ? "admitted" : "live_only")])
            .increment()
        return admitted
    }
}
