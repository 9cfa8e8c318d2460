import BraidExperiments
import Testing

/// ``Bucketing`` decides which variant of a feed (and which interleaving arm) a user sees:
/// the split must follow the weights, stay put for a user, and depend on the salt.
@Suite("stable weighted bucketing of users")
struct BucketingTests {
    static let users = (0..<100_000).map { "u\($0)" }

    /// Index of the entry of `weights` a user falls in under `salt`.
    static func arm(of user: String, weights: [Int], salt: String) -> Int {
        Bucketing.pick(Array(weights.indices), bucket: Bucketing.bucket(of: user, salt: salt)) { weights[$0] }!
    }

    @Test("Over 100,000 users each entry gets its weight's share, within 1 percentage point", arguments: [[50, 50], [10, 30, 60]])
    func splitFollowsTheWeights(weights: [Int]) {
        var counts = [Int](repeating: 0, count: weights.count)
        for user in Self.users { counts[Self.arm(of: user, weights: weights, salt: "feed:home")] += 1 }
        for (index, weight) in weights.enumerated() {
            let share = Double(counts[index]) / Double(Self.users.count)
            #expect(abs(share - Double(weight) / 100) <= 0.01, "entry \(index) of \(weights): \(counts)")
        }
    }

    @Test("A user's bucket is the same on every call, from any task, for the id and salt however they were built")
    func aUserKeepsTheirBucket() async {
        let users = Array(Self.users.prefix(1_000))
        let first = users.map { Bucketing.bucket(of: $0, salt: "feed:home") }
        #expect(first.allSatisfy { (0..<100).contains($0) })
        // Recomputed from strings built anew, in concurrent tasks: no state is kept between calls.
        let again = await withTaskGroup(of: [Int].self) { group in
            for _ in 0..<4 {
                group.addTask {
                    (0..<users.count).map { Bucketing.bucket(of: "u" + String($0), salt: ["feed", "home"].joined(separator: ":")) }
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(again.count == 4)
        for buckets in again { #expect(buckets == first) }
    }

    @Test("A new salt reshuffles about half of the users of a 50/50 split")
    func aNewSaltReshufflesHalfOfTheUsers() {
        let moved = Self.users.filter {
            Self.arm(of: $0, weights: [50, 50], salt: "feed:home") != Self.arm(of: $0, weights: [50, 50], salt: "feed:home-v2")
        }.count
        let share = Double(moved) / Double(Self.users.count)
        #expect((0.45...0.55).contains(share), "\(moved) of \(Self.users.count) changed side")
    }

    /// Golden values of the current hash (SHA-256 of `<salt>\0<id>`, first 8 bytes, modulo
    /// 100), computed once with the code of today: a change of the hash, the byte layout or
    /// the salt a feed uses would move existing users to another variant. Never update these
    /// to make a change pass; `FeedVariantCompatibilityTests` pins the variants themselves.
    @Test("Buckets of known users under the salt feed:home are the golden values of the current hash")
    func knownUsersKeepTheirBuckets() {
        let golden: [String: Int] = [
            "u00001": 88, "u00002": 84, "u00003": 11, "u00004": 95, "u00005": 75,
            "u00006": 38, "u00007": 59, "u00008": 93, "alice": 41, "bob": 73,
        ]
        for (user, bucket) in golden { #expect(Bucketing.bucket(of: user, salt: "feed:home") == bucket, "\(user)") }
        #expect(Bucketing.hash("u00002", salt: "feed:home") == 3_922_971_752_497_804_084)
    }
}
