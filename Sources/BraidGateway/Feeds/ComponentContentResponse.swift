import BraidCore

/// Stage 2 of a feed: one component's content (`ComponentContent` in `Schemas/openapi.yaml`).
public struct ComponentContentResponse: Sendable, Encodable, Equatable {
    public enum Status: String, Sendable, Encodable {
        case ready
        /// Not available in time: the client draws the skeleton and asks again.
        case pending
    }

    public enum Source: String, Sendable, Encodable {
        case cached
        case live
    }

    public var component: String
    public var type: String
    public var status: Status
    public var source: Source?
    /// Hash of `items`: the ETag, and the client's key for cached cell sizes.
    public var stateHash: String?
    public var items: [JSONValue]?
    public var nextCursor: String?

    enum CodingKeys: String, CodingKey {
        case component, type, status, source, items
        case stateHash = "state_hash"
        case nextCursor = "next_cursor"
    }

    static func pending(_ component: String, type: String) -> ComponentContentResponse {
        ComponentContentResponse(component: component, type: type, status: .pending)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(component, forKey: .component)
        try container.encode(type, forKey: .type)
        try container.encode(status, forKey: .status)
        try container.encodeIfPresent(source, forKey: .source)
        try container.encodeIfPresent(stateHash, forKey: .stateHash)
        try container.encodeIfPresent(items, forKey: .items)
        if status == .ready { try container.encode(nextCursor, forKey: .nextCursor) }
    }
}
