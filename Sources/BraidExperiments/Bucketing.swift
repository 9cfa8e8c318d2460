import Crypto

/// Stable assignment of users or sessions to buckets 0..<100 for A/B arms: the same id
/// always lands in the same bucket, on every gateway, across restarts.
public enum Bucketing {
    /// Bucket of an id within an experiment (salting by experiment keeps arms of different
    /// experiments independent of each other).
    public static func bucket(of id: String, salt: String) -> Int {
        Int(hash(id, salt: salt) % 100)
    }

    /// 64 bits of SHA-256 over salt and id: also the team-draft seed of a session.
    public static func hash(_ id: String, salt: String) -> UInt64 {
        let digest = SHA256.hash(data: Array("\(salt)\u{0}\(id)".utf8))
        return digest.prefix(8).reduce(UInt64(0)) { ($0 << 8) | UInt64($1) }
    }

    /// Picks the entry whose cumulative weight range holds the bucket; a bucket past the
    /// last weight falls back to the first entry.
    public static func pick<T>(_ entries: [T], bucket: Int, weight: (T) -> Int) -> T? {
        var upper = 0
        for entry in entries {
            upper += weight(entry)
            if bucket < upper { return entry }
        }
        return entries.first
    }
}
