import Crypto

/// Stable assignment of users or sessions to buckets 0..<100 for A/B arms: the same id
/// always lands in the same bucket, on every gateway, across restarts.
public enum Bucketing {
    /// Bucket of an id within an experiment (salting by experiment keeps arms of different
    /// experiments independent of each other).
    public static func bucket(of id: String, salt: String) -> Int {
        let digest = SHA256.hash(data: Array("\(salt)\u{0}\(id)".utf8))
        let prefix = digest.prefix(8).reduce(UInt64(0)) { ($0 << 8) | UInt64($1) }
        return Int(prefix % 100)
    }
}
