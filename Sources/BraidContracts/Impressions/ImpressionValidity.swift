import BraidCore

/// How long an impression id is evidence, and why that keeps a replay from counting twice.
///
/// The workers deduplicate events in Redis state per impression that is kept
/// ``impressionStateTTLSeconds`` after the impression's first event (its field `e`; the retention
/// sweep deletes it after that, never earlier). An event older than that
/// state would find it gone and count again, so:
/// - the gateway accepts events only within the window (`gateway.impression_window_seconds`,
///   at most ``maxWindowSeconds``) after the id's issue time, and refuses ids issued more than
///   ``clockSkewToleranceSeconds`` in its future (``check(issuedAt:now:windowSeconds:)``);
/// - a worker credits an event only while the impression's state cannot have expired
///   (``isCreditable(issuedAt:now:)``), however late it reads the event from Kafka.
///
/// With clocks that disagree by at most the skew tolerance S, the state of an impression whose
/// first event a worker applied at p₁ ≥ issuedAt − S lives until p₁ + TTL ≥ issuedAt − S + TTL,
/// later than issuedAt + TTL − 2S, the last moment a worker credits one of its events.
public enum ImpressionValidity {
    /// How long a worker keeps an impression's state (its credit and clicked positions).
    public static let impressionStateTTLSeconds = 7 * 86_400
    /// How far apart the clocks of gateways and workers may be (``ClockSkew``).
    public static let clockSkewToleranceSeconds = ClockSkew.toleranceSeconds
    /// `gateway.impression_window_seconds` by default: a day to click what a page showed.
    public static let defaultWindowSeconds = 86_400
    /// The longest window: shorter than the state's TTL by twice the skew tolerance, and an
    /// hour more, so that an event accepted at the end of the window is still credited by a
    /// worker that reads it within the hour.
    public static let maxWindowSeconds = impressionStateTTLSeconds - 2 * clockSkewToleranceSeconds - 3_600

    public enum Verdict: Sendable, Hashable {
        case valid
        /// Format version 1 or 2: no issue time, so no bound on replays.
        case outdated(version: UInt8)
        /// Issued longer ago than the window.
        case expired
        /// Issued further in the future than the skew tolerance (a gateway's clock is off).
        case fromTheFuture
    }

    /// Whether an event of `token` received at `now` (seconds since 1970) is inside its window.
    public static func check(_ token: ImpressionToken, now: Int64, windowSeconds: Int) -> Verdict {
        guard let issuedAt = token.issuedAt else { return .outdated(version: token.formatVersion) }
        return check(issuedAt: issuedAt, now: now, windowSeconds: windowSeconds)
    }

    public static func check(issuedAt: Int64, now: Int64, windowSeconds: Int) -> Verdict {
        if issuedAt > now + Int64(clockSkewToleranceSeconds) { return .fromTheFuture }
        if now > issuedAt + Int64(windowSeconds) { return .expired }
        return .valid
    }

    /// Whether a worker may still credit an event of an impression issued at `issuedAt`: only
    /// while that impression's state, if it ever existed, cannot have expired.
    public static func isCreditable(issuedAt: Int64, now: Int64) -> Bool {
        now < issuedAt + Int64(impressionStateTTLSeconds - 2 * clockSkewToleranceSeconds)
    }
}
