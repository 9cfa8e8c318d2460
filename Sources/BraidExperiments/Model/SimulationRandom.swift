/// The simulation's random numbers: splitmix64 streams addressed by (seed, stream, index), so
/// every session and every run draws from its own stream and the whole simulation is a pure
/// function of its seed, whatever order (or thread) the runs are computed in.
public struct SimulationRandom: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64, stream: UInt64 = 0, index: UInt64 = 0) {
        var start = seed
        for part in [stream, index] { start = Self.mix(start ^ Self.mix(part &+ 0x632B_E59B_D9B4_E019)) }
        state = start
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        return Self.mix(state)
    }

    /// Uniform in [0, 1), 53 bits.
    public mutating func unit() -> Double {
        Double(next() >> 11) * 0x1.0p-53
    }

    /// Uniform in 0..<bound (bound > 0), by multiply-shift (bias below 2⁻⁵⁰ for the small bounds used here).
    public mutating func below(_ bound: Int) -> Int {
        Int(truncatingIfNeeded: (next().multipliedFullWidth(by: UInt64(bound))).high)
    }

    static func mix(_ value: UInt64) -> UInt64 {
        var z = value
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
