/// How often keys were seen lately, approximately, in fixed memory: a count-min sketch with
/// conservative update and periodic halving (the frequency half of Caffeine's W-TinyLFU).
/// Pure logic: the caller passes the time, in seconds on any monotonic clock.
///
/// Memory: `depth` (4) rows of `width` one-byte counters (`width` rounded up to a power of
/// two): 4 × 65,536 bytes = 256 KiB at the default width, whatever the number of keys.
///
/// An estimate is never below the true count since the last halving; it is above it only
/// when a key shares a counter with other keys in every row. Counters halve every
/// `halvingSeconds`, and also after `10 × width` recordings (Caffeine's sample size), so a
/// flood of distinct keys ages the sketch faster instead of filling it with collisions.
public struct FrequencySketch: Sendable {
    public static let depth = 4
    public let width: Int
    public let halvingSeconds: Double
    private var counters: [UInt8]
    private let mask: UInt64
    private var recordings = 0
    private var lastHalving: Double?
    /// Per-process seed: which keys collide cannot be worked out from outside.
    private let seed: UInt64

    public init(width: Int, halvingSeconds: Double, seed: UInt64 = UInt64.random(in: 0...UInt64.max)) {
        let rounded = Self.roundedWidth(width)
        self.width = rounded
        self.halvingSeconds = halvingSeconds
        self.mask = UInt64(rounded - 1)
        self.counters = [UInt8](repeating: 0, count: rounded * Self.depth)
        self.seed = seed
    }

    /// `width` rounded up to a power of two (at least 16), so a hash picks a counter by masking.
    static func roundedWidth(_ width: Int) -> Int {
        var rounded = 1
        while rounded < max(16, width) { rounded <<= 1 }
        return rounded
    }

    /// Bytes of counters held.
    public var bytes: Int { counters.count }

    /// Records one sighting of `key` at `now` and returns its estimated count, this one included.
    public mutating func record(_ key: String, now: Double) -> Int {
        age(now: now)
        return increment(hash: hash(key))
    }

    /// The estimated count of `key` (not recorded).
    public func estimate(_ key: String) -> Int {
        estimate(hash: hash(key))
    }

    /// Records one sighting of a key already hashed (with a per-process seed, as Swift's
    /// `Hasher` is) and returns its estimated count; ages by sample size only.
    @discardableResult
    mutating func increment(hash: UInt64) -> Int {
        let current = estimate(hash: hash)
        guard current < Int(UInt8.max) else { return current }
        // Conservative update: only the counters at the minimum grow, so collisions inflate less.
        for row in 0..<Self.depth {
            let slot = self.slot(hash, row: row)
            if Int(counters[slot]) == current { counters[slot] = UInt8(current + 1) }
        }
        recordings += 1
        if recordings >= 10 * width { halve() }
        return current + 1
    }

    func estimate(hash: UInt64) -> Int {
        var minimum = UInt8.max
        for row in 0..<Self.depth { minimum = min(minimum, counters[slot(hash, row: row)]) }
        return Int(minimum)
    }

    private mutating func age(now: Double) {
        guard let last = lastHalving else {
            lastHalving = now
            return
        }
        guard halvingSeconds > 0, now - last >= halvingSeconds else { return }
        let periods = Int(min(8, ((now - last) / halvingSeconds).rounded(.down)))
        for _ in 0..<periods { halve() }
        lastHalving = now
    }

    private mutating func halve() {
        for index in counters.indices { counters[index] >>= 1 }
        recordings = 0
    }

    private func hash(_ key: String) -> UInt64 {
        var hasher = FNV1a(seed: seed)
        for byte in key.utf8 { hasher.add(byte) }
        return hasher.finish()
    }

    /// Double hashing: row i uses h1 + i·h2, each row its own part of `counters`.
    private func slot(_ hash: UInt64, row: Int) -> Int {
        let h2 = (hash >> 32 | hash << 32) | 1
        return row * width + Int((hash &+ UInt64(row) &* h2) & mask)
    }
}

/// 64-bit FNV-1a over a seed, finished with a SplitMix64 mix so low bits are well spread.
struct FNV1a {
    var state: UInt64

    init(seed: UInt64) { state = 0xcbf2_9ce4_8422_2325 ^ seed }

    mutating func add(_ byte: UInt8) {
        state ^= UInt64(byte)
        state = state &* 0x0000_0100_0000_01b3
    }

    func finish() -> UInt64 {
        var z = state &+ 0x9e37_79b9_7f4a_7c15
        z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
        z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
        return z ^ (z >> 31)
    }
}
