@testable import BraidGateway
import Testing

/// The near-cache's W-TinyLFU policy (``TinyLFUStore``), as pure logic: entries of 1,000 bytes
/// in a bound of 100 of them. Keys hash differently in every process (Swift's seeded hashing):
/// the figures asked for hold whatever the collisions.
@Suite("Near-cache")
struct NearCacheTests {
    typealias Store = TinyLFUStore<String, Int>
    static let entry = 1_000

    static func store(entries: Int = 100) -> Store {
        Store(capacity: entries * entry, expectedEntryBytes: entry)
    }

    /// A gateway's use: a read, and on a miss an insert of what it then fetched.
    static func read(_ store: inout Store, _ key: String) -> Bool {
        if store.value(for: key) != nil { return true }
        store.insert(1, bytes: entry, for: key)
        return false
    }

    @Test func aHotSetLargerThanProtectedOutlastsAScanOfOneOffEntries() {
        // 90 hot keys in room for 100: protected holds 79, so hot keys keep passing through
        // probation, where each one-off key of the scan is compared with them. Admitting every
        // candidate (no comparison with the victim) evicts hot keys all along the scan.
        var store = Self.store()
        let hot = (0..<90).map { "hot-\($0)" }
        for _ in 0..<5 { for key in hot { _ = Self.read(&store, key) } }
        var hits = 0, reads = 0
        for step in 0..<5_000 {
            _ = Self.read(&store, "scan-\(step)")
            if step % 2 == 0 {
                hits += Self.read(&store, hot[(step / 2) % hot.count]) ? 1 : 0
                reads += 1
            }
        }
        #expect(Double(hits) / Double(reads) >= 0.99, "hot hits \(hits) of \(reads)")
        #expect(hot.allSatisfy { store.segment(of: $0) != nil }, "hot keys evicted by the scan")
        #expect(store.rejections >= 4_500, "rejections \(store.rejections)")
    }

    @Test func aKeyThatBecomesPopularGetsInOnceUsedMoreOftenThanItsVictim() {
        var store = Self.store(entries: 10)
        for key in (0..<10).map({ "old-\($0)" }) { _ = Self.read(&store, key) }
        // Seen once, as often as the victim: turned away (a tie keeps the incumbent).
        _ = Self.read(&store, "new")
        #expect(store.segment(of: "new") == nil)
        // Missed again and again, it counts up past the victim and is admitted.
        var attempts = 1
        while store.segment(of: "new") == nil && attempts < 10 {
            _ = Self.read(&store, "new")
            attempts += 1
        }
        #expect(store.segment(of: "new") != nil && attempts <= 3, "admitted after \(attempts) misses")
        #expect(store.count == 10)
    }

    @Test func aSecondUseMovesAnEntryFromProbationToProtected() {
        var store = Self.store()
        store.insert(1, bytes: Self.entry, for: "a")
        store.insert(2, bytes: Self.entry, for: "b")  // the window (1,000 bytes) passes "a" on
        #expect(store.segment(of: "b") == .window)
        #expect(store.segment(of: "a") == .probation)
        #expect(store.value(for: "a") == 1)
        #expect(store.segment(of: "a") == .protected)
    }

    @Test func heldBytesNeverExceedTheBoundAndEveryHeldValueIsTheLatest() {
        var store = Store(capacity: 50_000, expectedEntryBytes: 2_000)
        var latest: [String: Int] = [:]
        var random = SplitMixForTests(seed: 11)
        for step in 0..<20_000 {
            let key = "k\(random.next() % 300)"
            if random.next() % 3 == 0 {
                let bytes = Int(random.next() % 6_000) + 1
                store.insert(step, bytes: bytes, for: key)
                latest[key] = step
            } else if let value = store.value(for: key) {
                #expect(value == latest[key], "\(key) holds \(value), not its latest \(latest[key] ?? -1)")
            }
            #expect(store.bytes <= store.capacity)
        }
        #expect(store.count > 0 && store.count <= 300)
        #expect(store.evictions + store.rejections > 0)
    }

    @Test func aValueLargerThanTheWholeBoundIsNotKeptNorIsTheKeysOldValue() {
        var store = Self.store(entries: 3)
        store.insert(1, bytes: 500, for: "a")
        store.insert(2, bytes: 3_001, for: "a")
        #expect(store.value(for: "a") == nil)
        #expect(store.bytes == 0 && store.count == 0)
        // Replacing a value with one of another size moves the count of bytes with it.
        store.insert(3, bytes: 500, for: "b")
        store.insert(4, bytes: 900, for: "b")
        #expect(store.value(for: "b") == 4 && store.bytes == 900)
    }
}
