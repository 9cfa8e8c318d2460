/// Who a component's content is for. At least one field is set.
public struct ComponentScope: Sendable, Hashable, Codable {
    public var user: String?
    public var segment: String?
    public var category: String?

    public init(user: String? = nil, segment: String? = nil, category: String? = nil) {
        self.user = user
        self.segment = segment
        self.category = category
    }

    /// Stable text form, used in cache keys: `user=u42`, `category=dessert`, …
    public var canonical: String {
        [("category", category), ("segment", segment), ("user", user)]
            .compactMap { name, value in value.map { "\(name)=\($0)" } }
            .joined(separator: "&")
    }
}
