import BraidContracts
import BraidCore

/// Stage 2 of a feed: one component's content (`ComponentContent` in `Schemas/openapi.yaml`).
///
/// Items are carried as their canonical JSON, never as values: a cached page is a slice of
/// the stored bytes, and the body is written around it (``ComponentResponseWriter``).
public struct ComponentContentResponse: Sendable, Equatable {
    public enum Status: String, Sendable {
        case ready
        /// Not available in time: the client draws the skeleton and asks again.
        case pending
    }

    public enum Source: String, Sendable {
        case cached
        case live
        /// An interleaved list: a cached ranking and a live query, slot by slot.
        case interleaved
    }

    public var component: String
    public var type: String
    public var status: Status
    public var source: Source?
    /// For list components the content hash of the page's items; for fixed-size components
    /// the hash of their type and layout (the client's key for a cached cell size).
    public var stateHash: String?
    /// The content hash of the page's items: the ETag, whatever the sizing.
    public var etag: String?
    /// The items' canonical JSON joined by commas, without brackets.
    public var joinedItems: ArraySlice<UInt8>?
    public var itemCount: Int
    public var nextCursor: String?
    /// An interleaved team-draft page's impression id (``ImpressionToken``): written after the
    /// items, never part of them, so the ETag and a cached body's bytes do not depend on it.
    public var impressionID: String?

    public init(
        component: String, type: String, status: Status, source: Source? = nil, stateHash: String? = nil, etag: String? = nil,
        joinedItems: ArraySlice<UInt8>? = nil, itemCount: Int = 0, nextCursor: String? = nil, impressionID: String? = nil
    ) {
        self.impressionID = impressionID
        self.component = component
        self.type = type
        self.status = status
        self.source = source
        self.stateHash = stateHash
        self.etag = etag
        self.joinedItems = joinedItems
        self.itemCount = itemCount
        self.nextCursor = nextCursor
    }

    static func pending(_ component: String, type: String) -> ComponentContentResponse {
        ComponentContentResponse(component: component, type: type, status: .pending)
    }

    /// A ready page whose items are `joined` (canonical JSON, comma-joined); `etag`, their
    /// content hash when the caller knows it already.
    static func ready(
        _ component: String, type: ComponentType, sizing fixedHash: String?, source: Source, joined: ArraySlice<UInt8>,
        etag: String? = nil, count: Int, nextCursor: String?
    ) -> ComponentContentResponse {
        let etag = etag ?? ComponentHash.content(ofJoinedItems: joined)
        return ComponentContentResponse(
            component: component, type: type.rawValue, status: .ready, source: source, stateHash: fixedHash ?? etag, etag: etag,
            joinedItems: joined, itemCount: count, nextCursor: nextCursor)
    }

    /// The JSON body, as `JSONEncoder` would write it for the document's shape.
    public var json: [UInt8] {
        var writer = ComponentResponseWriter()
        writer.write(self)
        return writer.bytes
    }
}

/// Writes component bodies: field names and short strings escaped, items copied as they are.
struct ComponentResponseWriter {
    var bytes: [UInt8] = []

    init(capacity: Int = 4_096) {
        bytes.reserveCapacity(capacity)
    }

    mutating func write(_ response: ComponentContentResponse) {
        raw(#"{"component":"#)
        string(response.component)
        raw(#","type":"#)
        string(response.type)
        raw(#","status":"#)
        string(response.status.rawValue)
        if let source = response.source {
            raw(#","source":"#)
            string(source.rawValue)
        }
        if let hash = response.stateHash {
            raw(#","state_hash":"#)
            string(hash)
        }
        if let items = response.joinedItems {
            raw(#","items":["#)
            bytes += items
            raw("]")
        }
        if response.status == .ready {
            raw(#","next_cursor":"#)
            if let cursor = response.nextCursor { string(cursor) } else { raw("null") }
        }
        if let impression = response.impressionID {
            raw(#","impression_id":"#)
            string(impression)
        }
        raw("}")
    }

    /// `{"components":[…]}` of a batchGet.
    mutating func writeBatch(_ responses: [ComponentContentResponse]) {
        raw(#"{"components":["#)
        for (index, response) in responses.enumerated() {
            if index > 0 { raw(",") }
            write(response)
        }
        raw("]}")
    }

    mutating func raw(_ text: StaticString) {
        text.withUTF8Buffer { bytes += $0 }
    }

    /// A JSON string: quotes, backslashes and control characters escaped.
    mutating func string(_ text: String) {
        bytes.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): raw(#"\""#)
            case UInt8(ascii: "\\"): raw(#"\\"#)
            case 0x0A: raw(#"\n"#)
            case 0x0D: raw(#"\r"#)
            case 0x09: raw(#"\t"#)
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                raw(#"\u00"#)
                bytes.append(hex[Int(byte >> 4)])
                bytes.append(hex[Int(byte & 0x0F)])
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }
}
