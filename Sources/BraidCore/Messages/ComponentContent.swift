import Crypto
import Foundation

/// The materialized content of one feed component for one scope, as stored in Redis
/// (`Schemas/component.schema.json`).
public struct ComponentContent: Sendable, Hashable, Codable {
    public static let schemaName = "braid.component/v1"

    public var schema: String
    public var feed: String
    public var type: ComponentType
    public var scope: ComponentScope
    /// Type-specific items (recipes, authors, banners…), in display order.
    public var items: [JSONValue]
    /// Hash of `items` only: equal content has equal hashes whatever its version or time, so
    /// clients can reuse cell sizes and the gateway can answer If-None-Match with 304.
    public var stateHash: String
    /// Milliseconds since 1970 of the request that produced it; versions only grow.
    public var version: Int64
    public var createdAt: Date

    public init(feed: String, type: ComponentType, scope: ComponentScope, items: [JSONValue], version: Int64, createdAt: Date) {
        self.schema = Self.schemaName
        self.feed = feed
        self.type = type
        self.scope = scope
        self.items = items
        self.stateHash = Self.stateHash(of: items)
        self.version = version
        self.createdAt = createdAt
    }

    enum CodingKeys: String, CodingKey {
        case schema, feed, type, scope, items, version
        case stateHash = "state_hash"
        case createdAt = "created_at"
    }

    /// First 16 bytes of SHA-256 over the items' canonical JSON (sorted keys), as hex.
    public static func stateHash(of items: [JSONValue]) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // JSONValue holds only JSON-representable values: encoding cannot fail.
        let data = (try? encoder.encode(items)) ?? Data()
        return SHA256.hash(data: data).prefix(16).map { byte in
            let hex = String(byte, radix: 16)
            return byte < 16 ? "0" + hex : hex
        }.joined()
    }

    public func encoded() throws -> Data {
        try StoredValueCoding.encoder().encode(self)
    }

    public static func decode(_ data: Data) throws -> ComponentContent {
        try StoredValueCoding.decoder().decode(ComponentContent.self, from: data)
    }
}
