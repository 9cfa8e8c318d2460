import BraidCore
import Foundation

/// A component's content in the form it is stored in Redis and kept in the gateway's
/// near-cache: the JSON document of `Schemas/component.schema.json` (`braid.component/v2`)
/// with its items last and in canonical JSON, plus the byte offset of every item, so a page
/// is a slice of bytes: the gateway serves cached content without decoding and re-encoding it.
///
/// `offsets` has one entry per item and one more: item `i` is
/// `document[offsets[i] ..< offsets[i + 1] - 1]` (the byte before each next item is its
/// comma; the last entry is one past the closing `]`).
public struct StoredComponent: Sendable, Hashable {
    public static let schemaName = "braid.component/v2"
    /// Values with the items inside the document and no offsets (an older worker's); read by
    /// re-encoding them.
    public static let legacySchemaName = "braid.component/v1"

    public let document: [UInt8]
    public let offsets: [Int]
    public let version: Int64
    /// ``ComponentContent/stateHash`` of all items.
    public let stateHash: String

    public var count: Int { offsets.count - 1 }

    /// The items `range` (clamped) as their canonical JSON joined by commas, no brackets.
    public func joinedItems(_ range: Range<Int>) -> ArraySlice<UInt8> {
        let range = range.clamped(to: 0..<count)
        guard !range.isEmpty else { return [] }
        return document[offsets[range.lowerBound] ..< offsets[range.upperBound] - 1]
    }

    /// `offsets` as stored in the hash field of that name: `[12,345,…]`.
    public var offsetsText: String { "[" + offsets.map(String.init).joined(separator: ",") + "]" }

    // MARK: Writing

    /// The stored form of `content`.
    public static func encode(_ content: ComponentContent) throws -> StoredComponent {
        let header = Header(
            schema: schemaName, feed: content.feed, type: content.type, scope: content.scope, stateHash: content.stateHash,
            version: content.version, createdAt: content.createdAt, count: content.items.count)
        let encoder = CanonicalJSON.encoder()
        var document = Array(try encoder.encode(header))
        document.removeLast()  // `}`: the items follow as the last member
        document += Array(#","items":["#.utf8)
        var offsets: [Int] = []
        offsets.reserveCapacity(content.items.count + 1)
        for (index, item) in content.items.enumerated() {
            if index > 0 { document.append(UInt8(ascii: ",")) }
            offsets.append(document.count)
            document += try encoder.encode(item)
        }
        document.append(UInt8(ascii: "]"))
        offsets.append(document.count)
        document.append(UInt8(ascii: "}"))
        return StoredComponent(document: document, offsets: offsets, version: content.version, stateHash: content.stateHash)
    }

    // MARK: Reading

    /// A stored value: the `content` and `offsets` fields of the component's hash. Checks that
    /// the offsets frame items of the document (a value another writer left, or a corrupt
    /// one, is an error, never a wrong page); the document is trusted to be the JSON a worker
    /// wrote.
    public static func parse(document: [UInt8], offsets text: [UInt8], version: Int64, stateHash: String) throws(StoredComponentError) -> StoredComponent {
        let offsets = try parseOffsets(text)
        guard let last = offsets.last, last <= document.count, last >= 2 else { throw .init("offsets out of range") }
        let count = offsets.count - 1
        // Sorted keys put `count` first: offsets left behind by an older writer of the other
        // fields cannot pass for this document's.
        let prefix = Array(#"{"count":\#(count),"#.utf8)
        guard document.starts(with: prefix) else { throw .init("the document does not start with {\"count\":\(count),") }
        if count == 0 {
            guard document[last - 2] == UInt8(ascii: "["), document[last - 1] == UInt8(ascii: "]") else {
                throw .init("offsets do not frame an empty item list")
            }
        } else {
            guard offsets[0] >= 1, document[offsets[0] - 1] == UInt8(ascii: "["), document[last - 1] == UInt8(ascii: "]") else {
                throw .init("offsets do not frame the item list")
            }
            for index in 0..<count {
                let start = offsets[index], end = offsets[index + 1] - 1
                guard start < end, document[start] == UInt8(ascii: "{"), document[end - 1] == UInt8(ascii: "}"),
                      index == 0 || document[start - 1] == UInt8(ascii: ",")
                else { throw .init("offset \(index) does not frame an item") }
            }
        }
        return StoredComponent(document: document, offsets: offsets, version: version, stateHash: stateHash)
    }

    /// A `braid.component/v1` value (items inside the document, no offsets), re-encoded.
    public static func legacy(_ data: Data) throws -> StoredComponent {
        let old = try StoredValueCoding.decoder().decode(LegacyV1.self, from: data)
        guard old.schema == legacySchemaName else { throw StoredComponentError("schema '\(old.schema)' is not \(legacySchemaName)") }
        var content = ComponentContent(feed: old.feed, type: old.type, scope: old.scope, items: old.items, version: old.version, createdAt: old.createdAt)
        content.stateHash = old.stateHash
        return try encode(content)
    }

    /// The whole document decoded (tools and tests; the gateway never needs it).
    public func decoded() throws -> ComponentContent {
        let whole = try StoredValueCoding.decoder().decode(Whole.self, from: Data(document))
        guard whole.schema == Self.schemaName else { throw StoredComponentError("schema '\(whole.schema)' is not \(Self.schemaName)") }
        var content = ComponentContent(
            feed: whole.feed, type: whole.type, scope: whole.scope, items: whole.items, version: whole.version, createdAt: whole.createdAt)
        content.stateHash = whole.stateHash
        return content
    }

    static func parseOffsets(_ text: [UInt8]) throws(StoredComponentError) -> [Int] {
        guard text.count >= 3, text.first == UInt8(ascii: "["), text.last == UInt8(ascii: "]") else { throw .init("offsets are not a JSON array") }
        var offsets: [Int] = []
        var value = 0, digits = 0
        for byte in text.dropFirst() {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                guard digits < 12 else { throw .init("an offset is too large") }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
                digits += 1
            case UInt8(ascii: ","), UInt8(ascii: "]"):
                guard digits > 0, offsets.last.map({ $0 < value }) ?? true else { throw .init("offsets are not increasing integers") }
                offsets.append(value)
                value = 0
                digits = 0
            default:
                throw .init("offsets are not integers")
            }
        }
        return offsets
    }

    struct Header: Encodable {
        var schema: String
        var feed: String
        var type: ComponentType
        var scope: ComponentScope
        var stateHash: String
        var version: Int64
        var createdAt: Date
        var count: Int

        enum CodingKeys: String, CodingKey {
            case schema, feed, type, scope, version, count
            case stateHash = "state_hash"
            case createdAt = "created_at"
        }
    }

    struct Whole: Decodable {
        var schema: String
        var feed: String
        var type: ComponentType
        var scope: ComponentScope
        var stateHash: String
        var version: Int64
        var createdAt: Date
        var items: [JSONValue]

        enum CodingKeys: String, CodingKey {
            case schema, feed, type, scope, version, items
            case stateHash = "state_hash"
            case createdAt = "created_at"
        }
    }

    typealias LegacyV1 = Whole
}

/// A stored component value that is not what Braid writes.
public struct StoredComponentError: Error, Sendable, Hashable, CustomStringConvertible {
    public let reason: String
    public init(_ reason: String) { self.reason = reason }
    public var description: String { reason }
}
