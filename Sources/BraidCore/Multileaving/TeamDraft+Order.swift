extension TeamDraft {
    /// The order in which `teams` teams pick in `round` of a session seeded with `seed`: a
    /// permutation of `0..<teams` (0 is the live ranking). Fisher–Yates from the last place
    /// down, the t-th swap drawing `z_t = splitmix64(seed &+ round &* 0x9E3779B97F4A7C15 &+
    /// t &* 0xD1B54A32D192ED03)` and swapping place i with place `i − z_t mod (i + 1)`.
    ///
    /// Part of the cursor contract (stable across processes and versions), computable for any
    /// round alone, and for two teams the same coin as ``firstTeam(seed:round:)`` (z_0 is that
    /// coin's draw; an even draw keeps the live ranking first), so a multileave of one cached
    /// ranking is exactly two-ranking team-draft interleaving.
    public static func order(seed: UInt64, round: Int, teams: Int) -> [Int] {
        var order = Array(0..<max(0, teams))
        let base = seed &+ UInt64(truncatingIfNeeded: round) &* 0x9E37_79B9_7F4A_7C15
        var draw: UInt64 = 0
        for place in stride(from: order.count - 1, to: 0, by: -1) {
            let z = splitmix64(base &+ draw &* 0xD1B5_4A32_D192_ED03)
            draw += 1
            let other = place - Int(z % UInt64(place + 1))
            order.swapAt(place, other)
        }
        return order
    }

    /// The splitmix64 finaliser (the same mixing as ``firstTeam(seed:round:)``).
    static func splitmix64(_ value: UInt64) -> UInt64 {
        var z = value
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
