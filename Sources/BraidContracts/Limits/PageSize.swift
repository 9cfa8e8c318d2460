import BraidCore

/// How many items one page may hold: a search page's `per_page`, a feed component's
/// `page_size`, a cursor's page size. The OpenAPI document states the same range
/// (`PageSizeContractTests` compares them).
public enum PageSize {
    public static let range = 1...100

    /// `1-100`, as messages write the range.
    public static var text: String { "\(range.lowerBound)-\(range.upperBound)" }
}
