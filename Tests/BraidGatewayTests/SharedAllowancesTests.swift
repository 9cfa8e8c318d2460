@testable import BraidGateway
import Testing

/// ``SharedAllowances`` against a model of the shared bucket (the Lua script's arithmetic),
/// with N gateways and grants that arrive late.
@Suite("shared allowances")
struct SharedAllowancesTests {
    /// The shared bucket as `SharedRateBudget.take` computes it.
    struct Bucket {
        let rate: Double
        let burst: Double
        var tokens: Double
        var at = 0.0

        init(rate: Double, burst: Double) {
            self.rate = rate
            self.burst = burst
            self.tokens = burst
        }

        mutating func take(_ want: Int, now: Double) -> (tokens: Int, retryAfter: Double) {
            tokens = min(burst, tokens + max(0, now - at) * rate)
            at = now
            let granted = min(want, Int(tokens.rounded(.down)))
            tokens -= Double(granted)
            return (granted, granted == 0 ? (1 - tokens) / rate : 0)
        }
    }

    /// N gateways, each offered `load` requests a second (spread evenly over the run), grants
    /// answered `latency` seconds after they are asked.
    static func simulate(gateways: Int, rate: Double, burst: Double, offeredPerGateway load: Double, seconds: Double, latency: Double) -> Int {
        var bucket = Bucket(rate: rate, burst: burst)
        let batch = SharedAllowances<String>.batch(ratePerSecond: rate, burst: burst)
        var allowances = (0..<gateways).map { _ in SharedAllowances<String>(batch: batch, capacity: 10) }
        var pending: [(due: Double, gateway: Int, want: Int)] = []
        var admitted = 0
        let step = 1 / (load * Double(gateways))
        var now = 0.0
        var turn = 0
        while now < seconds {
            // Grants due by now reach their gateway, in order.
            pending.sort { $0.due < $1.due }
            while let first = pending.first, first.due <= now {
                pending.removeFirst()
                let grant = bucket.take(first.want, now: first.due)
                allowances[first.gateway].granted("caller", tokens: grant.tokens, retryAfter: grant.retryAfter, now: first.due)
            }
            let gateway = turn % gateways
            let take = allowances[gateway].take("caller", now: now)
            if take.decision == .admitted { admitted += 1 }
            if let want = take.refill { pending.append((now + latency, gateway, want)) }
            turn += 1
            now += step
        }
        return admitted
    }

    @Test("Three gateways offered 3× the rate admit at most rate × T + burst + one credit each, and not much less")
    func threeGatewaysShareOneBucket() {
        let rate = 20.0, burst = 40.0, seconds = 30.0
        let admitted = Self.simulate(gateways: 3, rate: rate, burst: burst, offeredPerGateway: rate, seconds: seconds, latency: 0.002)
        let allowed = rate * seconds + burst
        #expect(Double(admitted) <= allowed + 3, "admitted \(admitted) of \(allowed)")
        #expect(Double(admitted) >= 0.9 * allowed, "admitted \(admitted) of \(allowed)")
    }

    @Test("Slow grants (a quarter second) still keep the fleet within the bound")
    func slowGrantsKeepTheBound() {
        let admitted = Self.simulate(gateways: 5, rate: 10, burst: 20, offeredPerGateway: 30, seconds: 20, latency: 0.25)
        #expect(Double(admitted) <= 10 * 20 + 20 + 5, "admitted \(admitted)")
    }

    @Test("Until the shared bucket first answers, a caller's requests are pending (the local bucket decides) and owed; the grant pays them")
    func firstRoundTripIsPendingAndOwed() {
        var allowances = SharedAllowances<String>(batch: 4, capacity: 10)
        let first = allowances.take("a", now: 0)
        #expect(first == .init(decision: .pending, refill: 9))
        // The grant is on its way: pending again, and no second refill.
        let second = allowances.take("a", now: 0.001)
        #expect(second == .init(decision: .pending, refill: nil))
        allowances.granted("a", tokens: 9, retryAfter: 0, now: 0.002)
        #expect(allowances.held("a") == 7)
    }

    @Test("Once answered, a caller with nothing held is admitted on credit once while its batch is on the way, then refused")
    func creditOnceWhileABatchIsOnItsWay() {
        var allowances = SharedAllowances<String>(batch: 1, capacity: 10)
        _ = allowances.take("a", now: 0)
        allowances.granted("a", tokens: 1, retryAfter: 0, now: 0.001)
        #expect(allowances.held("a") == 0)
        let credit = allowances.take("a", now: 0.01)
        #expect(credit.decision == .admitted)
        #expect(credit.refill == 3)
        guard case .rejected = allowances.take("a", now: 0.011).decision else { Issue.record("a second request on credit"); return }
    }

    @Test("An empty shared bucket refuses until its retry time, without asking again meanwhile")
    func emptyBucketBacksOff() {
        var allowances = SharedAllowances<String>(batch: 2, capacity: 10)
        _ = allowances.take("a", now: 0)
        allowances.granted("a", tokens: 0, retryAfter: 0.5, now: 0.01)
        let refused = allowances.take("a", now: 0.2)
        #expect(refused.refill == nil)
        guard case .rejected(let after) = refused.decision else { Issue.record("\(refused)"); return }
        #expect(abs(after - 0.31) < 1e-9)
        // After the retry time the request asks again (and is still owed: no second credit).
        let later = allowances.take("a", now: 0.52)
        #expect(later.refill != nil)
    }

    @Test("A refill outstanding past the patience makes the shared bucket unavailable for that request, and is asked again")
    func overdueRefill() {
        var allowances = SharedAllowances<String>(batch: 2, capacity: 10, patience: 1)
        _ = allowances.take("a", now: 0)
        #expect(allowances.take("a", now: 0.5) == .init(decision: .pending, refill: nil))
        let overdue = allowances.take("a", now: 1.5)
        #expect(overdue.decision == .unavailable)
        #expect(overdue.refill != nil)
    }

    @Test("A full table drops idle allowances; with none idle, a new caller is untracked")
    func fullTable() {
        var allowances = SharedAllowances<String>(batch: 2, capacity: 2, idleSeconds: 10)
        _ = allowances.take("a", now: 0)
        _ = allowances.take("b", now: 0)
        allowances.failed("a")
        allowances.failed("b")
        #expect(allowances.take("c", now: 5).decision == .untracked)
        #expect(allowances.take("c", now: 20).decision == .pending)
        #expect(allowances.count == 1)
    }
}
