/// Why a live query failed. The gateway maps ``Code/unavailable`` and ``Code/timeout`` to
/// 503 (a page without its live ranking is not a search result) and ``Code/badQuery`` to 400.
public struct SearchSourceError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Extensible error codes: new ones can be added without breaking `switch`-free callers.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }

        /// The backend cannot be reached (connection refused, database file missing, …).
        public static let unavailable = Code("unavailable")
        /// The backend did not answer before the deadline.
        public static let timeout = Code("timeout")
        /// The backend answered with an error status or a body Braid cannot read.
        public static let badResponse = Code("bad_response")
        /// The request itself is unacceptable (negative offset, absurd size, …).
        public static let badQuery = Code("bad_query")

        public var description: String { name }
    }

    public let code: Code
    public let message: String
    /// HTTP status of a ``Code/badResponse`` from an HTTP backend.
    public let status: Int?
    public let file: String
    public let line: UInt

    public init(_ code: Code, _ message: String, status: Int? = nil, file: String = #fileID, line: UInt = #line) {
        self.code = code
        self.message = message
        self.status = status
        self.file = file
        self.line = line
    }

    /// Worth trying again later (or on another replica); a bad query never is.
    public var isRetriable: Bool { code == .unavailable || code == .timeout }

    public var description: String {
        let statusText = status.map { " (HTTP \($0))" } ?? ""
        return "search source \(code)\(statusText): \(message)"
    }

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.code == rhs.code && lhs.message == rhs.message && lhs.status == rhs.status
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(code)
        hasher.combine(message)
        hasher.combine(status)
    }
}

extension SearchRequest {
    /// Most ids a request may exclude; B is at most a few hundred documents.
    public static let maxExcluded = 10_000
    /// Largest page a source is asked for.
    public static let maxSize = 1_000

    /// Rejects requests no backend should see.
    public func validate() throws {
        guard from >= 0 else { throw SearchSourceError(.badQuery, "from must not be negative (got \(from))") }
        guard (0...Self.maxSize).contains(size) else {
            throw SearchSourceError(.badQuery, "size must be 0 to \(Self.maxSize) (got \(size))")
        }
        guard excluding.count <= Self.maxExcluded else {
            throw SearchSourceError(.badQuery, "at most \(Self.maxExcluded) excluded ids (got \(excluding.count))")
        }
        if let ids, ids.count > Self.maxSize {
            throw SearchSourceError(.badQuery, "at most \(Self.maxSize) ids to restrict to (got \(ids.count))")
        }
    }
}
