/// A Redis node's address.
public struct RedisEndpoint: Sendable, Hashable, CustomStringConvertible, Comparable {
    public var host: String
    public var port: Int

    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// Parses `host:port` (an IPv6 host in brackets, `[::1]:7000`, or bare, as in MOVED replies).
    public init?(_ text: some StringProtocol) {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]), (1...65_535).contains(port) else {
            return nil
        }
        var host = String(text[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty else { return nil }
        self.init(host: host, port: port)
    }

    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }

    public static func < (lhs: Self, rhs: Self) -> Bool { (lhs.host, lhs.port) < (rhs.host, rhs.port) }
}
