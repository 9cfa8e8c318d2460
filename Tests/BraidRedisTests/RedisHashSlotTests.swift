@testable import BraidRedis
import NIOCore
import Testing

@Suite("Redis Cluster hash slots")
struct RedisHashSlotTests {
    /// Answers of redis-server 7.0.15's `CLUSTER KEYSLOT` for these keys (recorded from the
    /// test cluster; `RedisClusterTests` also compares random keys against a live cluster).
    static let redisAnswers: [(String, Int)] = [
        ("", 0), ("foo", 12182), ("bar", 5061), ("somekey", 11058), ("foo{hash_tag}", 2515),
        ("{user1000}.following", 3443), ("{user1000}.followers", 3443), ("user1000", 3443),
        ("foo{}{bar}", 8363), ("foo{{bar}}zap", 4015), ("foo{bar}{zap}", 5061),
        ("braid:{rank:featured:1f3a}:cur", 4632), ("ＣＵＲＲＹ", 1242), ("{}", 15257), ("a{b", 13340), ("123456789", 12739),
    ]

    @Test(arguments: redisAnswers)
    func matchesRedisClusterKeyslot(key: String, slot: Int) {
        #expect(RedisHashSlot.slot(of: key) == slot)
        #expect(RedisHashSlot.slot(of: ByteBuffer(string: key)) == slot)
    }

    @Test func crc16IsXmodem() {
        // The check value of CRC-16/XMODEM, also quoted in the Redis Cluster specification.
        let crc = Array("123456789".utf8).withUnsafeBytes { RedisHashSlot.crc16($0) }
        #expect(crc == 0x31C3)
    }

    @Test func hashTagsFollowTheFirstBracePair() {
        let slot: (String) -> Int = RedisHashSlot.slot(of:)
        #expect(slot("braid:{rank:featured:9}:cur") == slot("braid:{rank:featured:9}:v:42"))
        #expect(slot("braid:{rank:featured:9}:cur") == slot("rank:featured:9"))
        // An empty tag does not count: the whole key is hashed.
        #expect(slot("foo{}{bar}") != slot("bar"))
        // Only the first `{` and the first `}` after it.
        #expect(slot("foo{{bar}}zap") == slot("{bar"))
        #expect(slot("foo{bar}{zap}") == slot("bar"))
        // No closing brace: the whole key.
        #expect(slot("a{b") != slot("b"))
    }

    @Test func everySlotIsInRange() {
        for index in 0..<5000 {
            #expect((0..<RedisHashSlot.count).contains(RedisHashSlot.slot(of: "key:\(index)")))
        }
    }
}
