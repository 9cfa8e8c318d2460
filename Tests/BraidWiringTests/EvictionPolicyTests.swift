import BraidWiring
import Testing

@Suite("Redis eviction policy")
struct EvictionPolicyTests {
    @Test("Only volatile policies are safe for what Braid cannot recompute; noeviction and allkeys are warned about")
    func policiesAreJudgedByWhatTheyMayEvict() {
        for name in ["volatile-lfu", "volatile-lru", "volatile-random", "volatile-ttl"] {
            #expect(EvictionPolicy(name) == .volatile(name))
            #expect(EvictionPolicy(name).warning == nil && !EvictionPolicy(name).losesRetainedKeys)
        }
        for name in ["allkeys-lfu", "allkeys-lru", "allkeys-random"] {
            #expect(EvictionPolicy(name).losesRetainedKeys)
            #expect(EvictionPolicy(name).warning?.contains("walk records") == true)
        }
        #expect(EvictionPolicy("noeviction") == .noEviction)
        #expect(!EvictionPolicy("noeviction").losesRetainedKeys)
        #expect(EvictionPolicy("noeviction").warning?.contains("every write fails") == true)
    }

    @Test("The policy is read from INFO memory")
    func policyIsParsedFromInfo() {
        let info = "# Memory\r\nused_memory:1033520\r\nmaxmemory:0\r\nmaxmemory_policy:allkeys-lru\r\nallocator_frag_ratio:1.02\r\n"
        #expect(EvictionPolicy.parse(info: info) == .allKeys("allkeys-lru"))
        #expect(EvictionPolicy.parse(info: "# Memory\r\nused_memory:1\r\n") == nil)
    }
}
