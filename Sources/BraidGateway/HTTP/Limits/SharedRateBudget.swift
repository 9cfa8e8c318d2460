import BraidContracts
import BraidRedis
import Logging
import ServiceLifecycle
import Synchronization

/// The fleet-wide token buckets behind ``RateLimiter``: one bucket per caller in Redis
/// (``CacheKeys/rateBucket(kind:caller:)``), from which each gateway takes tokens in batches
/// (``SharedAllowances``), in the background, never on a request's path.
///
/// The bucket refills by Redis's clock (`TIME` inside the script), so gateways whose clocks
/// disagree still share one rate.
public final class SharedRateBudget: Service, Sendable {
    /// One batch to ask for.
    struct Refill: Sendable {
        let kind: RateLimiter.Kind
        let key: String
        let tokens: Int
    }

    /// What the bucket granted: tokens, and when it had none, seconds until one is back.
    struct Grant: Sendable, Equatable {
        let tokens: Int
        let retryAfter: Double
    }

    struct Health {
        /// The last refill failed: the shared buckets are not consulted.
        var failing = false
        /// When (seconds of ``RateLimiter``'s clock) a request may ask Redis again.
        var nextProbe = -Double.infinity
    }

    /// After Redis failed a refill, requests are decided by the local buckets alone until a
    /// refill succeeds; one request this often asks again.
    static let probeInterval = 1.0

    private let redis: RedisClient
    private let keys: CacheKeys
    private let perIdentity: TokenBuckets<String>.Limit
    private let perAddress: TokenBuckets<String>.Limit
    private let identities: Mutex<SharedAllowances<String>>
    private let addresses: Mutex<SharedAllowances<String>>
    private let health = Mutex(Health())
    private let logger: Logger
    private let refills: AsyncStream<Refill>
    private let continuation: AsyncStream<Refill>.Continuation

    public init(
        redis: RedisClient, keys: CacheKeys, perIdentity: TokenBuckets<String>.Limit, perAddress: TokenBuckets<String>.Limit,
        maxCallers: Int, logger: Logger = Logger(label: "braid.gateway.rate-limits")
    ) {
        self.redis = redis
        self.keys = keys
        self.perIdentity = perIdentity
        self.perAddress = perAddress
        func allowances(_ limit: TokenBuckets<String>.Limit) -> SharedAllowances<String> {
            SharedAllowances(batch: SharedAllowances<String>.batch(ratePerSecond: limit.ratePerSecond, burst: limit.burst), capacity: maxCallers)
        }
        identities = Mutex(allowances(perIdentity))
        addresses = Mutex(allowances(perAddress))
        self.logger = logger
        // Unbounded, yet bounded by the allowances: a caller has at most one refill outstanding.
        (refills, continuation) = AsyncStream.makeStream(bufferingPolicy: .unbounded)
    }

    private func withAllowances<T>(_ kind: RateLimiter.Kind, _ body: (inout SharedAllowances<String>) -> T) -> T {
        switch kind {
        case .identity: identities.withLock { body(&$0) }
        case .address: addresses.withLock { body(&$0) }
        }
    }

    /// The fleet-wide decision for a request of `key`: ``SharedAllowances/Decision/unavailable``
    /// while Redis fails or is slow to grant (the local buckets decide alone). Never waits for Redis.
    func take(_ kind: RateLimiter.Kind, _ key: String, now: Double) -> SharedAllowances<String>.Decision {
        let (failing, probe) = health.withLock { health in
            guard health.failing, now >= health.nextProbe else { return (health.failing, false) }
            health.nextProbe = now + Self.probeInterval
            return (true, true)
        }
        if failing, !probe { return .unavailable }
        let take = withAllowances(kind) { $0.take(key, now: now) }
        if let tokens = take.refill { continuation.yield(Refill(kind: kind, key: key, tokens: tokens)) }
        // A probe's request is still decided locally: its refill says whether Redis is back.
        return failing ? .unavailable : take.decision
    }

    /// Asks Redis for the batches requests need, concurrently, until shut down.
    public func run() async throws {
        await withDiscardingTaskGroup { group in
            for await refill in refills.cancelOnGracefulShutdown() {
                group.addTask { await self.apply(refill) }
            }
        }
    }

    private func apply(_ refill: Refill) async {
        do {
            let grant = try await grant(refill)
            let now = RateLimiter.now()
            withAllowances(refill.kind) { $0.granted(refill.key, tokens: grant.tokens, retryAfter: grant.retryAfter, now: now) }
            let recovered = health.withLock { health in
                defer { health.failing = false }
                return health.failing
            }
            if recovered { logger.info("fleet-wide rate limits shared again") }
        } catch {
            withAllowances(refill.kind) { $0.failed(refill.key) }
            let now = RateLimiter.now()
            let wasShared = health.withLock { health in
                defer {
                    health.failing = true
                    health.nextProbe = now + Self.probeInterval
                }
                return !health.failing
            }
            if wasShared { logger.warning("fleet-wide rate limits unavailable: each gateway limits alone", metadata: ["error": "\(error)"]) }
        }
    }

    /// Takes up to `refill.tokens` from the caller's bucket.
    func grant(_ refill: Refill) async throws -> Grant {
        let limit = refill.kind == .identity ? perIdentity : perAddress
        let reply = try await redis.evalsha(
            Self.take, keys: [keys.rateBucket(kind: refill.kind.rawValue, caller: refill.key)],
            arguments: [.string(String(limit.ratePerSecond)), .string(String(limit.burst)), .integer(Int64(refill.tokens))])
        guard case .array(let values?) = reply, values.count == 2, case .integer(let tokens) = values[0], case .integer(let wait) = values[1] else {
            throw RedisUnexpectedReplyError(command: "EVALSHA (rate bucket)", reply: reply)
        }
        return Grant(tokens: Int(tokens), retryAfter: Double(wait) / 1_000)
    }

    /// KEYS[1] the bucket (hash: `tokens`, `at` in seconds of Redis's clock); ARGV rate per
    /// second, burst, tokens wanted. Returns {granted, milliseconds until a token is back
    /// when none was granted}. The key expires once the bucket would be full again: a full
    /// bucket and no bucket are the same.
    static let take = RedisScript(
        """
        local rate, burst, want = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
        local t = redis.call('TIME')
        local now = tonumber(t[1]) + tonumber(t[2]) / 1000000
        local state = redis.call('HMGET', KEYS[1], 'tokens', 'at')
        local tokens = tonumber(state[1]) or burst
        local at = tonumber(state[2]) or now
        tokens = math.min(burst, tokens + math.max(0, now - at) * rate)
        local granted = math.min(want, math.floor(tokens))
        tokens = tokens - granted
        redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', tostring(now))
        redis.call('PEXPIRE', KEYS[1], math.ceil((burst - tokens) / rate * 1000) + 1000)
        local wait = 0
        if granted == 0 then wait = math.ceil((1 - tokens) / rate * 1000) end
        return {granted, wait}
        """)
}
