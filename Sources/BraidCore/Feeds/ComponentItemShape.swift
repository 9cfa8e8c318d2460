/// The shape of each kind of component item, as `Schemas/component.schema.json` defines it
/// (`$defs`): workers check every item before storing it, so the gateway can serve stored
/// bytes without looking at them. A contract test holds this table and the schema together.
public enum ComponentItemShape {
    public enum FieldType: String, Sendable, Hashable {
        case string
        /// An integral number ≥ 0.
        case count
        /// RFC 3339 text with a zone (the schema's `time` pattern).
        case time
        case strings
    }

    public struct Field: Sendable, Hashable {
        public var name: String
        public var type: FieldType
    }

    /// Required fields of each item kind (items may carry more).
    public static let fields: [ComponentItemKind: [Field]] = {
        func f(_ pairs: KeyValuePairs<String, FieldType>) -> [Field] { pairs.map { Field(name: $0.key, type: $0.value) } }
        let recipe = f([
            "id": .string, "title": .string, "author": .string, "author_id": .string, "category": .string,
            "ingredients": .strings, "published_at": .time, "popularity": .count, "image_url": .string,
        ])
        return [
            .recipe: recipe,
            .carouselItem: recipe + f(["overlay_title": .string]),
            .cooksnap: f(["id": .string, "recipe_id": .string, "recipe_title": .string, "comment": .string, "created_at": .time, "image_url": .string]),
            .creator: f(["id": .string, "name": .string, "recipe_count": .count, "follower_count": .count, "avatar_url": .string]),
            .userStats: f(["id": .string, "user_id": .string, "period_days": .count, "as_of": .time, "recipes": .count, "views": .count, "cooksnaps": .count]),
            .banner: f(["id": .string, "title": .string, "image_url": .string, "link_url": .string, "starts_at": .time, "ends_at": .time, "segment": .string]),
            .profileHeader: f([
                "id": .string, "name": .string, "avatar_url": .string, "recipe_count": .count, "cooksnap_count": .count,
                "follower_count": .count, "following_count": .count,
            ]),
            .profileTab: f(["id": .string, "count": .count]),
        ]
    }()

    /// Most items of types drawn as one object.
    public static let maxSingleObjectItems = 1

    /// Throws the first way `items` differ from the shape of `type`'s items.
    public static func validate(_ items: [JSONValue], for type: ComponentType) throws(ComponentShapeError) {
        if type.isSingleObject, items.count > maxSingleObjectItems {
            throw ComponentShapeError("\(type.rawValue) has at most \(maxSingleObjectItems) item, not \(items.count)")
        }
        guard let fields = fields[type.itemKind] else {
            throw ComponentShapeError("\(type.rawValue) items are not stored as component content")
        }
        for (index, item) in items.enumerated() {
            guard case .object(let object) = item else { throw ComponentShapeError("items[\(index)] is not an object") }
            for field in fields {
                guard let value = object[field.name] else { throw ComponentShapeError("items[\(index)].\(field.name) is missing") }
                guard matches(value, field.type) else {
                    throw ComponentShapeError("items[\(index)].\(field.name) is not \(field.type.rawValue == "count" ? "a count" : "a \(field.type.rawValue)")")
                }
            }
        }
    }

    static func matches(_ value: JSONValue, _ type: FieldType) -> Bool {
        switch (type, value) {
        case (.string, .string): true
        case (.count, .number(let number)): number >= 0 && number.rounded() == number && number < 9.0e15
        case (.time, .string(let text)): isTime(text)
        case (.strings, .array(let values)): values.allSatisfy { if case .string = $0 { true } else { false } }
        default: false
        }
    }

    /// `^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})$`
    /// (the schema's `time`), checked by hand.
    static func isTime(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        func digits(_ range: Range<Int>) -> Bool {
            range.upperBound <= bytes.count && bytes[range].allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
        }
        func byte(_ index: Int, _ ascii: Unicode.Scalar) -> Bool { index < bytes.count && bytes[index] == UInt8(ascii: ascii) }
        guard digits(0..<4), byte(4, "-"), digits(5..<7), byte(7, "-"), digits(8..<10), byte(10, "T"), digits(11..<13), byte(13, ":"),
              digits(14..<16), byte(16, ":"), digits(17..<19)
        else { return false }
        var index = 19
        if byte(index, ".") {
            index += 1
            let start = index
            while digits(index..<(index + 1)) { index += 1 }
            guard index > start else { return false }
        }
        if byte(index, "Z") { return index + 1 == bytes.count }
        guard byte(index, "+") || byte(index, "-") else { return false }
        return digits((index + 1)..<(index + 3)) && byte(index + 3, ":") && digits((index + 4)..<(index + 6)) && index + 6 == bytes.count
    }
}

/// Items that do not have their type's shape.
public struct ComponentShapeError: Error, Sendable, Hashable, CustomStringConvertible {
    public let reason: String
    public init(_ reason: String) { self.reason = reason }
    public var description: String { reason }
}
