import BraidCore
import Foundation

extension PrecomputeRequest {
    /// Parses and validates one message value.
    public static func decode(_ data: Data) throws(RequestValidationError) -> PrecomputeRequest {
        guard data.count <= Limits.maxMessageBytes else {
            throw RequestValidationError("message of \(data.count) bytes exceeds the limit of \(Limits.maxMessageBytes)")
        }
        let parsed: Any
        do {
            parsed = try JSONSerialization.jsonObject(with: data, options: [])
        } catch {
            throw RequestValidationError("not valid JSON")
        }
        guard let object = parsed as? [String: Any] else { throw RequestValidationError("the message must be a JSON object") }
        var fields = Fields(object, path: "")

        let schema = try fields.string("schema")
        guard schema == Self.schema else { throw RequestValidationError("schema: unsupported '\(schema)', expected '\(Self.schema)'") }
        let id = try fields.string("id")
        guard UUID(uuidString: id) != nil else { throw RequestValidationError("id: must be a UUID") }
        let requestedAt = try parseTime(try fields.string("requested_at"))
        let ttl = try fields.optionalInt("ttl_seconds")
        if let ttl, !Limits.ttlRange.contains(ttl) {
            throw RequestValidationError("ttl_seconds: must be within \(Limits.ttlRange.lowerBound)...\(Limits.ttlRange.upperBound)")
        }
        let body: Body
        switch try fields.string("kind") {
        case "ranking": body = .ranking(try rankingTarget(try fields.object("ranking")))
        case "component": body = .component(try componentTarget(try fields.object("component")))
        case let other: throw RequestValidationError("kind: unknown '\(other.prefix(64))', expected ranking or component")
        }
        return PrecomputeRequest(id: id.lowercased(), body: body, ttlSeconds: ttl, requestedAt: requestedAt)
    }

    /// The wire form (compact JSON, keys sorted so equal requests are equal bytes).
    public func encoded() -> Data {
        var object: [String: Any] = [
            "schema": Self.schema,
            "id": id,
            "requested_at": Self.formatTime(requestedAt),
        ]
        if let ttlSeconds { object["ttl_seconds"] = ttlSeconds }
        switch body {
        case .ranking(let target):
            object["kind"] = "ranking"
            var ranking: [String: Any] = ["id": target.ranking, "query": target.query]
            if let size = target.size { ranking["size"] = size }
            object["ranking"] = ranking
        case .component(let target):
            object["kind"] = "component"
            var scope: [String: Any] = [:]
            if let user = target.scope.user { scope["user"] = user }
            if let segment = target.scope.segment { scope["segment"] = segment }
            if let category = target.scope.category { scope["category"] = category }
            object["component"] = ["feed": target.feed, "type": target.type.rawValue, "scope": scope]
        }
        // Only strings, integers, and nested objects of them: serialization cannot fail.
        return (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data()
    }

    static func rankingTarget(_ fields: Fields) throws(RequestValidationError) -> RankingTarget {
        var fields = fields
        let ranking = try name(fields.string("id"), at: "ranking.id")
        let query = try fields.string("query")
        guard query.unicodeScalars.count <= Limits.maxQueryLength else {
            throw RequestValidationError("ranking.query: longer than \(Limits.maxQueryLength) characters")
        }
        guard query.contains(where: { !$0.isWhitespace }) else { throw RequestValidationError("ranking.query: must not be blank") }
        let size = try fields.optionalInt("size")
        if let size, !Limits.sizeRange.contains(size) {
            throw RequestValidationError("ranking.size: must be within \(Limits.sizeRange.lowerBound)...\(Limits.sizeRange.upperBound)")
        }
        return RankingTarget(ranking: ranking, query: query, size: size)
    }

    static func componentTarget(_ fields: Fields) throws(RequestValidationError) -> ComponentTarget {
        var fields = fields
        let feed = try name(fields.string("feed"), at: "component.feed")
        let rawType = try fields.string("type")
        guard let type = ComponentType(rawValue: rawType) else {
            throw RequestValidationError("component.type: unknown '\(rawType.prefix(64))'")
        }
        var scopeFields = try fields.object("scope")
        let allowed: Set<String> = ["user", "segment", "category"]
        if let unknown = scopeFields.object.keys.sorted().first(where: { !allowed.contains($0) }) {
            throw RequestValidationError("component.scope.\(unknown.prefix(64)): unknown field")
        }
        let scope = ComponentScope(
            user: try scopeFields.optionalString("user"),
            segment: try scopeFields.optionalString("segment"),
            category: try scopeFields.optionalString("category"))
        for (field, value) in [("user", scope.user), ("segment", scope.segment), ("category", scope.category)] {
            if let value, value.isEmpty || value.unicodeScalars.count > Limits.maxScopeValueLength {
                throw RequestValidationError("component.scope.\(field): must be 1 to \(Limits.maxScopeValueLength) characters")
            }
        }
        guard scope.user != nil || scope.segment != nil || scope.category != nil else {
            throw RequestValidationError("component.scope: must name a user, segment or category")
        }
        return ComponentTarget(feed: feed, type: type, scope: scope)
    }

    static func name(_ value: String, at path: String) throws(RequestValidationError) -> String {
        guard Names.isValid(value) else { throw RequestValidationError("\(path): must be \(Names.rule)") }
        return value
    }

    static func parseTime(_ text: String) throws(RequestValidationError) -> Date {
        // RFC 3339 with a zone, fractional seconds optional (as the schema's pattern). Format
        // styles, not ISO8601DateFormatter: creating a formatter costs more on Linux than the
        // rest of decoding a request.
        guard text.count <= 40, let date = (try? TimeFormat.fractional.parse(text)) ?? (try? TimeFormat.whole.parse(text)) else {
            throw RequestValidationError("requested_at: must be an RFC 3339 time with a zone, e.g. 2026-11-22T10:00:00Z")
        }
        return date
    }

    static func formatTime(_ date: Date) -> String {
        // The millisecond is the snapshot version's, so a request's version is the same before
        // and after the wire: rounding `date + 0.5 ms` separately would disagree with it for
        // times within float error of a half millisecond. The style truncates, so the middle of
        // that millisecond formats as it.
        let millisecond = RankingSnapshot.version(for: date)
        return TimeFormat.fractional.format(Date(timeIntervalSince1970: (Double(millisecond) + 0.5) / 1000))
    }
}

private enum TimeFormat {
    static let fractional = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
    static let whole = Date.ISO8601FormatStyle()
}

/// Typed access to a JSON object's fields with error messages naming the field's path.
struct Fields {
    let object: [String: Any]
    let path: String

    init(_ object: [String: Any], path: String) {
        self.object = object
        self.path = path
    }

    func qualified(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

    mutating func string(_ key: String) throws(RequestValidationError) -> String {
        guard let raw = object[key] else { throw RequestValidationError("\(qualified(key)): missing") }
        guard let value = raw as? String else { throw RequestValidationError("\(qualified(key)): must be a string") }
        return value
    }

    mutating func optionalString(_ key: String) throws(RequestValidationError) -> String? {
        guard object[key] != nil else { return nil }
        return try string(key)
    }

    mutating func optionalInt(_ key: String) throws(RequestValidationError) -> Int? {
        guard let raw = object[key] else { return nil }
        // JSONSerialization gives NSNumber for numbers and booleans alike (and `is Bool` holds
        // for the number 1): tell booleans apart by their Objective-C type code.
        guard let number = raw as? NSNumber, String(cString: number.objCType) != "c",
              let value = Int(exactly: number.doubleValue)
        else { throw RequestValidationError("\(qualified(key)): must be an integer") }
        return value
    }

    mutating func object(_ key: String) throws(RequestValidationError) -> Fields {
        guard let raw = object[key] else { throw RequestValidationError("\(qualified(key)): missing") }
        guard let value = raw as? [String: Any] else { throw RequestValidationError("\(qualified(key)): must be an object") }
        return Fields(value, path: qualified(key))
    }
}
