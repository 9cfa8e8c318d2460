/// Tokens of fleet-wide buckets held by one gateway, one allowance per caller (pure logic: the
/// caller passes the time, in seconds on any monotonic clock).
///
/// The buckets themselves live in Redis (``SharedRateBudget``); a request never waits for
/// them. It spends a token this gateway already holds, and when the holding runs low the
/// gateway asks the shared bucket for a batch in the background. Until the first answer for a
/// caller arrives, its requests are ``Decision/pending`` (the gateway's own bucket decides) and
/// owed; after it, one request at a time may be admitted on credit while a batch is on its way.
/// Grants pay what is owed first. So what a caller is admitted across N gateways is what the
/// shared bucket granted, plus what is owed at the moment (one request per gateway, or those
/// of a caller's first round trip), while the batches held unspent (at most `2 × batch` per
/// gateway) are granted and not yet admitted.
public struct SharedAllowances<Key: Hashable & Sendable>: Sendable {
    /// What a request gets.
    public struct Take: Sendable, Equatable {
        /// Admitted, or refused with the seconds until a token is likely back.
        public var decision: Decision
        /// When set, ask the shared bucket for this many tokens for the key and pass the answer
        /// to ``granted(_:tokens:retryAfter:now:)`` (or ``failed(_:)``).
        public var refill: Int?
    }

    public enum Decision: Sendable, Equatable {
        case admitted
        case rejected(retryAfter: Double)
        /// No answer from the shared bucket for this caller yet: the gateway's own bucket
        /// decides, and an admitted request is paid from the first grant.
        case pending
        /// The table is full of active callers: the shared budget does not track this one.
        case untracked
        /// The key's refill has been outstanding longer than ``patience``: the shared bucket
        /// cannot be relied on now (the caller decides by its local bucket). The refill is
        /// asked again.
        case unavailable
    }

    struct Allowance {
        /// Tokens granted to this gateway and not spent.
        var held = 0
        /// Requests admitted on credit or pending, to be paid from the next grants.
        var owed = 0
        /// Whether the shared bucket has answered for this caller.
        var answered = false
        var fetching = false
        /// When the outstanding refill was asked.
        var askedAt = -Double.infinity
        /// The shared bucket had nothing to grant; no token is expected before this.
        var refusedUntil = -Double.infinity
        var lastUsed: Double
    }

    /// Tokens asked for at a time; a gateway tops its holding up to twice this.
    public let batch: Int
    public let capacity: Int
    /// Seconds after which an allowance nobody uses may be dropped to make room.
    public let idleSeconds: Double
    /// Seconds a refill may take before requests stop waiting on it.
    public let patience: Double
    private var allowances: [Key: Allowance] = [:]
    private var lastSweep = -Double.infinity

    /// A batch that stays small against both the burst (what may be held unspent) and a tenth
    /// of a second of the rate (how often a busy caller's gateway asks).
    public static func batch(ratePerSecond: Double, burst: Double) -> Int {
        max(1, Int(min(burst / 8, (ratePerSecond / 10).rounded(.up))))
    }

    public init(batch: Int, capacity: Int, idleSeconds: Double = 60, patience: Double = 1) {
        self.patience = patience
        self.batch = max(1, batch)
        self.capacity = max(1, capacity)
        self.idleSeconds = idleSeconds
    }

    /// Callers with an allowance now.
    public var count: Int { allowances.count }

    /// Tokens held for `key` (for tests and the invariant's checks).
    public func held(_ key: Key) -> Int { allowances[key]?.held ?? 0 }

    /// Takes a token for `key` at `now`.
    public mutating func take(_ key: Key, now: Double) -> Take {
        guard var allowance = allowances[key] ?? makeRoom(now: now) else { return Take(decision: .untracked, refill: nil) }
        allowance.lastUsed = now
        let decision: Decision
        if allowance.fetching, now - allowance.askedAt > patience {
            allowance.fetching = false
            decision = .unavailable
        } else if allowance.held > 0 {
            allowance.held -= 1
            decision = .admitted
        } else if !allowance.answered {
            allowance.owed += 1
            decision = .pending
        } else if allowance.owed == 0, now >= allowance.refusedUntil {
            allowance.owed = 1
            decision = .admitted
        } else {
            // A grant is on its way or the bucket was empty: a token is back in about this long.
            decision = .rejected(retryAfter: max(0.001, allowance.refusedUntil - now))
        }
        var refill: Int?
        if !allowance.fetching, allowance.held < batch, now >= allowance.refusedUntil {
            allowance.fetching = true
            allowance.askedAt = now
            refill = 2 * batch - allowance.held + allowance.owed
        }
        allowances[key] = allowance
        return Take(decision: decision, refill: refill)
    }

    /// Applies the shared bucket's answer to a refill: `tokens` granted (possibly 0), and when
    /// nothing was left, the seconds until a token is back.
    public mutating func granted(_ key: Key, tokens: Int, retryAfter: Double, now: Double) {
        guard var allowance = allowances[key] else { return }
        allowance.fetching = false
        allowance.answered = true
        let repaid = min(allowance.owed, tokens)
        allowance.owed -= repaid
        allowance.held += tokens - repaid
        if tokens == 0 { allowance.refusedUntil = now + max(0.001, retryAfter) }
        allowances[key] = allowance
    }

    /// The refill could not be asked: the next request may ask again.
    public mutating func failed(_ key: Key) {
        allowances[key]?.fetching = false
    }

    private mutating func makeRoom(now: Double) -> Allowance? {
        if allowances.count >= capacity {
            guard now - lastSweep >= 1 else { return nil }
            lastSweep = now
            let idleSeconds = idleSeconds
            // Dropping an idle allowance forgets at most `2 × batch` tokens it held: under-admission.
            allowances = allowances.filter { _, allowance in allowance.fetching || now - allowance.lastUsed < idleSeconds }
            guard allowances.count < capacity else { return nil }
        }
        return Allowance(lastUsed: now)
    }
}
