import BraidContracts
import BraidRedis
import Crypto
import Foundation

/// Sightings of missed keys counted across the fleet (`gateway.admission.shared`): a count-min
/// sketch in Redis, one per period of `halving` seconds, so a query seen once on each of three
/// gateways counts three.
///
/// A miss already costs the page a Redis read (the pointer that was not there); recording the
/// sighting is one more round trip on that path only, never on a hit. The estimate is the
/// current period's count plus half the previous one's: a key must be seen `threshold` times
/// within about one to two halving periods, as the local sketch's halving asks.
///
/// Memory in Redis: two periods' sketches of 4 × `width` one-byte counters
/// (`<prefix>:{admission}:<period>`, each expiring two periods after it began), 512 KiB at the
/// default width, whatever the number of keys. One hash tag: on a Redis Cluster every sighting
/// goes to one node.
public struct SharedSightings: Sendable {
    public static let depth = 4
    let redis: RedisClient
    let keys: CacheKeys
    /// Counters per row, a power of two.
    public let width: Int
    public let halvingSeconds: Int

    public init(redis: RedisClient, keys: CacheKeys, width: Int, halvingSeconds: Int) {
        self.redis = redis
        self.keys = keys
        self.width = FrequencySketch.roundedWidth(width)
        self.halvingSeconds = max(1, halvingSeconds)
    }

    /// The counter of each row for `key`: a digest every gateway computes alike (Swift's
    /// `Hasher` is seeded per process, so it would not do).
    public static func slots(of key: String, width: Int) -> [Int] {
        let digest = Array(SHA256.hash(data: Array(key.utf8)))
        return (0..<depth).map { row in
            var word: UInt64 = 0
            for byte in digest[(row * 8)..<(row * 8 + 8)] { word = word << 8 | UInt64(byte) }
            return row * width + Int(word & UInt64(width - 1))
        }
    }

    /// The period `now` falls in (by the gateway's clock: a gateway whose clock is a period off
    /// reads the others' count at half weight, never more).
    public static func period(of now: Date, halvingSeconds: Int) -> Int {
        Int((now.timeIntervalSince1970 / Double(halvingSeconds)).rounded(.down))
    }

    /// Records one sighting of `key` and returns its fleet-wide estimate, this one included.
    public func record(_ key: String, now: Date = Date()) async throws -> Int {
        let period = Self.period(of: now, halvingSeconds: halvingSeconds)
        let reply = try await redis.evalsha(
            Self.record, keys: [keys.admissionSketch(period: period), keys.admissionSketch(period: period - 1)],
            arguments: [.integer(Int64(2 * halvingSeconds))] + Self.slots(of: key, width: width).map { .integer(Int64($0)) })
        guard case .integer(let estimate) = reply else { throw RedisUnexpectedReplyError(command: "EVALSHA (admission sketch)", reply: reply) }
        return Int(estimate)
    }

    /// KEYS[1] this period's sketch, KEYS[2] the previous one's; ARGV[1] seconds the sketch
    /// lives, ARGV[2…] the counters (byte offsets). Increments this period's counters
    /// (saturating at 255) and returns min(this period) + floor(min(previous) / 2).
    static let record = RedisScript(
        """
        local incr, get = {'OVERFLOW', 'SAT'}, {}
        for i = 2, #ARGV do
          table.insert(incr, 'INCRBY'); table.insert(incr, 'u8'); table.insert(incr, '#' .. ARGV[i]); table.insert(incr, 1)
          table.insert(get, 'GET'); table.insert(get, 'u8'); table.insert(get, '#' .. ARGV[i])
        end
        local current = redis.call('BITFIELD', KEYS[1], unpack(incr))
        if redis.call('TTL', KEYS[1]) < 0 then redis.call('EXPIRE', KEYS[1], ARGV[1]) end
        local previous = redis.call('BITFIELD', KEYS[2], unpack(get))
        local now, before = 255, 255
        for i = 1, #current do
          now = math.min(now, current[i]); before = math.min(before, previous[i])
        end
        return now + math.floor(before / 2)
        """)
}
