import BraidContracts
import BraidCore
import Foundation

/// Produces the items of one feed component for one scope: what workers materialize into
/// Redis and what the gateway falls back to live when the cache has nothing.
public protocol ComponentProvider: Sendable {
    func items(_ request: ComponentRequest) async throws -> ComponentPage
    /// Releases what the provider holds (connections, threads); called once, at exit.
    func shutdown() async throws
}

extension ComponentProvider {
    /// A provider that holds nothing has nothing to release.
    public func shutdown() async throws {}
}

/// One page of one component's content.
public struct ComponentRequest: Sendable, Hashable {
    public var type: ComponentType
    public var scope: ComponentScope
    public var limit: Int
    /// Items to skip; each component (e.g. each profile tab) paginates on its own.
    public var offset: Int
    /// A search inside a profile tab (`profile_recipes`, `profile_cooksnaps`): only items
    /// matching it, of the scope's user. Other types refuse a query.
    public var query: String?
    /// The time the content is for (campaign windows, "this week").
    public var now: Date

    public init(type: ComponentType, scope: ComponentScope, limit: Int = 10, offset: Int = 0, query: String? = nil, now: Date = Date()) {
        self.type = type
        self.scope = scope
        self.limit = limit
        self.offset = offset
        self.query = query
        self.now = now
    }
}

public struct ComponentPage: Sendable, Hashable {
    /// JSON objects with at least `id`; recipes also carry `title`, `author`, `image_url`, …
    public var items: [JSONValue]
    /// Offset of the next page, nil when this page was the last.
    public var nextOffset: Int?
    /// When this content stops being true (a campaign starts or ends); nil: not known.
    public var validUntil: Date?

    public init(items: [JSONValue], nextOffset: Int?, validUntil: Date? = nil) {
        self.items = items
        self.nextOffset = nextOffset
        self.validUntil = validUntil
    }

    /// ``ComponentContent/stateHash(of:)`` of the items: equal content, equal hash.
    public var stateHash: String { ComponentContent.stateHash(of: items) }
}

/// Why a component cannot be produced.
public struct ComponentProviderError: Error, Sendable, Hashable, CustomStringConvertible {
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }
        /// The scope lacks what the type needs (a user for `recommended_recipes`, …).
        public static let missingScope = Code("missing_scope")
        public static let badRequest = Code("bad_request")
        /// The corpus cannot be read.
        public static let unavailable = Code("unavailable")
        public var description: String { name }
    }

    public let code: Code
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "component \(code): \(message)" }
}

extension ComponentRequest {
    public static let maxLimit = 200

    func validate() throws {
        guard (1...Self.maxLimit).contains(limit) else {
            throw ComponentProviderError(.badRequest, "limit must be 1 to \(Self.maxLimit) (got \(limit))")
        }
        guard offset >= 0 else { throw ComponentProviderError(.badRequest, "offset must not be negative (got \(offset))") }
        if query != nil, !type.isSearchableTab {
            throw ComponentProviderError(.badRequest, "\(type.rawValue) does not accept a search query")
        }
    }

    func required(_ value: String?, _ name: String) throws -> String {
        guard let value, !value.isEmpty else {
            throw ComponentProviderError(.missingScope, "\(type.rawValue) needs a \(name) in its scope")
        }
        return value
    }
}
