import BraidCore
import Foundation

/// A precompute request as it travels on `braid.requests` (`Schemas/request.schema.json`).
///
/// ``decode(_:)`` applies every rule of the schema, so a message the worker accepts is one
/// the schema accepts and vice versa (a test holds the two together over
/// `Schemas/examples/`). Unknown fields are ignored so producers can add fields first.
public struct PrecomputeRequest: Sendable, Hashable {
    public static let schema = "braid.request/v1"

    public enum Body: Sendable, Hashable {
        case ranking(RankingTarget)
        case component(ComponentTarget)
    }

    /// Materialize a secondary ranking for one query.
    public struct RankingTarget: Sendable, Hashable {
        public var ranking: String
        public var query: String
        /// Nil: the ranking's configured size.
        public var size: Int?

        public init(ranking: String, query: String, size: Int? = nil) {
            self.ranking = ranking
            self.query = query
            self.size = size
        }
    }

    /// Materialize one feed component's content for a user, segment or category.
    public struct ComponentTarget: Sendable, Hashable {
        public var feed: String
        public var type: ComponentType
        public var scope: ComponentScope

        public init(feed: String, type: ComponentType, scope: ComponentScope) {
            self.feed = feed
            self.type = type
            self.scope = scope
        }
    }

    public var id: String
    public var body: Body
    /// Nil: the configured TTL of the ranking or component.
    public var ttlSeconds: Int?
    public var requestedAt: Date

    public init(id: String = UUID().uuidString.lowercased(), body: Body, ttlSeconds: Int? = nil, requestedAt: Date = Date()) {
        self.id = id
        self.body = body
        self.ttlSeconds = ttlSeconds
        self.requestedAt = requestedAt
    }

    /// Refuses a request dated more than ``ClockSkew/toleranceSeconds`` after `now` (the
    /// worker's clock). Its time is its version, and a version outranks every request dated
    /// before it: materialized, it would freeze its cache entry until that date, whatever later
    /// requests asked for. Such a request comes from a producer whose clock is wrong, or was forged.
    public func checkNotAhead(of now: Date) throws(RequestValidationError) {
        let ahead = requestedAt.timeIntervalSince(now)
        guard ahead <= Double(ClockSkew.toleranceSeconds) else {
            throw RequestValidationError(
                "requested_at \(Self.formatTime(requestedAt)) is \(Int(ahead.rounded(.down))) s ahead of this worker's clock "
                    + "(at most \(ClockSkew.toleranceSeconds) s allowed): the producer's clock is wrong")
        }
    }

    /// Limits shared with the schema.
    public enum Limits {
        public static let maxMessageBytes = 64 * 1024
        public static let maxQueryLength = 512
        public static let sizeRange = 1...1000
        public static let ttlRange = 60...2_592_000
        public static let maxScopeValueLength = 128
    }
}

/// Why a message is not a valid request; goes into the dead-letter header.
public struct RequestValidationError: Error, Sendable, Hashable, CustomStringConvertible {
    public let reason: String
    public init(_ reason: String) { self.reason = reason }
    public var description: String { reason }
}
