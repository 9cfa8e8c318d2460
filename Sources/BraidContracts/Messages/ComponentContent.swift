import BraidCore
import Crypto
import Foundation

/// The materialized content of one feed component for one scope: what a worker computes.
/// In Redis it is stored as ``StoredComponent`` (`Schemas/component.schema.json`), whose
/// items are bytes a page can be sliced from.
public struct ComponentContent: Sendable, Hashable {
    public var feed: String
    public var type: ComponentType
    public var scope: ComponentScope
    /// Type-specific items (recipes, creators, a banner…), in display order.
    public var items: [JSONValue]
    /// Hash of `items` only: equal content has equal hashes whatever its version or time, so
    /// the gateway can answer If-None-Match with 304.
    public var stateHash: String
    /// Milliseconds since 1970 of the request that produced it; versions only grow.
    public var version: Int64
    public var createdAt: Date

    public init(feed: String, type: ComponentType, scope: ComponentScope, items: [JSONValue], version: Int64, createdAt: Date) {
        self.feed = feed
        self.type = type
        self.scope = scope
        self.items = items
        self.stateHash = Self.stateHash(of: items)
        self.version = version
        self.createdAt = createdAt
    }

    /// ``ComponentHash/content(ofItemsJSON:)`` of the items' canonical JSON.
    public static func stateHash(of items: [JSONValue]) -> String {
        ComponentHash.content(ofItemsJSON: CanonicalJSON.array(items))
    }
}

/// The one JSON form items are hashed and stored in: compact, keys sorted, slashes unescaped.
/// An array's encoding is `[` + its elements' encodings joined by `,` + `]`, so a slice of
/// stored items between two offsets is exactly the canonical JSON of those items.
public enum CanonicalJSON {
    public static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }

    /// `[a,b,…]` of `values` (JSONValue cannot fail to encode).
    public static func array(_ values: [JSONValue]) -> [UInt8] {
        Array((try? encoder().encode(values)) ?? Data("[]".utf8))
    }

    /// The encodings of `values` joined by commas, without brackets.
    public static func joined<T: Encodable>(_ values: [T]) throws -> [UInt8] {
        let data = try encoder().encode(values)
        return Array(data.dropFirst().dropLast())
    }
}

/// State hashes of components (ARCHITECTURE §2; README "Feeds").
public enum ComponentHash {
    /// First 16 bytes of SHA-256 over the items' canonical JSON array (`[…]`), as hex.
    public static func content(ofItemsJSON array: [UInt8]) -> String {
        Hex.string(SHA256.hash(data: array).prefix(16))
    }

    /// The same hash from the items' canonical JSON without brackets (a slice of stored
    /// items), without copying it.
    public static func content(ofJoinedItems joined: ArraySlice<UInt8>) -> String {
        var hasher = SHA256()
        hasher.update(data: [UInt8(ascii: "[")])
        joined.withUnsafeBytes { hasher.update(bufferPointer: $0) }
        hasher.update(data: [UInt8(ascii: "]")])
        return Hex.string(hasher.finalize().prefix(16))
    }

    /// The state hash of a fixed-size component: derived from its type and layout only, so it
    /// is known before the content (a size cache key, not a content hash).
    public static func fixed(type: ComponentType, style: LayoutStyle, width: Int, height: Int) -> String {
        let text = "fixed\u{0}\(type.rawValue)\u{0}\(style.rawValue)\u{0}\(width)x\(height)"
        return Hex.string(SHA256.hash(data: Array(text.utf8)).prefix(16))
    }
}
