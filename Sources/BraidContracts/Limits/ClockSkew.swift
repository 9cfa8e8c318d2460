import BraidCore

/// How far apart the clocks of Braid's processes (gateways, workers, and the services that
/// publish requests) may be: 300 s.
///
/// Everything that carries a time across processes is checked against it: a cursor expiring
/// further ahead than its lifetime allows, an impression id issued in the future, and a
/// precompute request dated in the future (whose version would otherwise outrank every later
/// request for its key until that date).
public enum ClockSkew {
    public static let toleranceSeconds = 300
}
