@testable import BraidGateway
import Testing

@Suite("token buckets")
struct TokenBucketTests {
    let limit = TokenBuckets<String>.Limit(ratePerSecond: 2, burst: 3)

    @Test func aBurstIsAdmittedThenRefusedUntilATokenIsBack() {
        var buckets = TokenBuckets<String>(limit: limit, capacity: 10)
        for _ in 0..<3 {
            let got = buckets.take("a", now: 100)
            #expect(got == .admitted)
        }
        do { let got = buckets.take("a", now: 100); #expect(got == .rejected(retryAfter: 0.5)) }
        // Half a second later one token (rate 2/s) is back, and only one.
        do { let got = buckets.take("a", now: 100.5); #expect(got == .admitted) }
        do { let got = buckets.take("a", now: 100.5); #expect(got == .rejected(retryAfter: 0.5)) }
        // Other callers have buckets of their own.
        do { let got = buckets.take("b", now: 100.5); #expect(got == .admitted) }
    }

    @Test func aBucketRefillsToItsBurstAndNoFurther() {
        var buckets = TokenBuckets<String>(limit: limit, capacity: 10)
        for _ in 0..<3 { _ = buckets.take("a", now: 0) }
        var admitted = 0
        for _ in 0..<10 where buckets.take("a", now: 1_000) == .admitted {
            admitted += 1
        }
        #expect(admitted == 3)
    }

    @Test func aFullTableSweepsIdleCallersAndOtherwiseAdmitsUntracked() {
        var buckets = TokenBuckets<String>(limit: limit, capacity: 2)
        do { let got = buckets.take("a", now: 0); #expect(got == .admitted) }
        do { let got = buckets.take("b", now: 0); #expect(got == .admitted) }
        // Both are active (not refilled): a third caller is admitted without a bucket.
        do { let got = buckets.take("c", now: 0.1); #expect(got == .untracked) }
        #expect(buckets.count == 2)
        // By t=2 both have refilled (1 token missing, rate 2/s): swept, and c gets a bucket.
        do { let got = buckets.take("c", now: 2); #expect(got == .admitted) }
        #expect(buckets.count == 1)
    }

    @Test func sweepsOfAFullTableHappenAtMostOnceASecond() {
        var buckets = TokenBuckets<String>(limit: limit, capacity: 1)
        for _ in 0..<3 { _ = buckets.take("a", now: 0) }
        let swept = buckets.take("b", now: 0)  // swept, nothing idle
        #expect(swept == .untracked)
        // a has refilled by 1.5, but the last sweep was at 0: still untracked until t=1.
        do { let got = buckets.take("b", now: 0.9); #expect(got == .untracked) }
        do { let got = buckets.take("b", now: 1.5); #expect(got == .admitted) }
    }
}

@Suite("frequency sketch")
struct FrequencySketchTests {
    @Test func countsAKeyAndForgetsHalfOfItEachPeriod() {
        var sketch = FrequencySketch(width: 1_024, halvingSeconds: 60, seed: 7)
        for expected in 1...6 {
            let got = sketch.record("curry rice", now: 0)
            #expect(got == expected)
        }
        #expect(sketch.estimate("curry rice") == 6)
        #expect(sketch.estimate("never seen") == 0)
        let halved = sketch.record("curry rice", now: 60)
        #expect(halved == 4)  // halved to 3, then this one
        // Many periods later it is gone.
        do { let got = sketch.record("curry rice", now: 6_000); #expect(got == 1) }
    }

    @Test func memoryIsFixedByTheWidth() {
        var sketch = FrequencySketch(width: 1_000, halvingSeconds: 60, seed: 1)
        #expect(sketch.width == 1_024)
        #expect(sketch.bytes == 4 * 1_024)
        for index in 0..<50_000 { _ = sketch.record("q\(index)", now: 0) }
        #expect(sketch.bytes == 4 * 1_024)
    }

    @Test func distinctKeysSeenOnceRarelyLookFrequent() {
        var sketch = FrequencySketch(width: 65_536, halvingSeconds: 600, seed: 42)
        var overTwo = 0
        for index in 0..<10_000 where sketch.record("random query \(index)", now: 0) >= 2 { overTwo += 1 }
        // Four rows of 65,536: a key looks seen twice only if each of its counters was hit before.
        #expect(overTwo <= 20)
    }

    @Test func aFloodOfRecordingsHalvesTheSketch() {
        var sketch = FrequencySketch(width: 16, halvingSeconds: 0, seed: 3)
        for _ in 0..<100 { _ = sketch.record("popular", now: 0) }
        let before = sketch.estimate("popular")
        // 10 × width recordings since the last halving: counters halve.
        for index in 0..<160 { _ = sketch.record("other \(index)", now: 0) }
        #expect(sketch.estimate("popular") < before)
    }
}
