import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The addresses a listener's configured host stands for, and whether they are loopback.
///
/// Decided on the resolved addresses, never on the spelling: `127.evil.example` is whatever
/// DNS says, `0.0.0.0` and `::` are every interface, `localhost` is loopback only if it
/// resolves to nothing else. A listener then binds the numeric address that was checked, so
/// a name that resolves differently a moment later cannot move it.
public enum ListenAddress {
    /// Numeric addresses of `host` (IPv4 and IPv6), in the resolver's order.
    public static func resolve(_ host: String) throws(ConfigurationError) -> [String] {
        guard !host.isEmpty else { throw ConfigurationError(message: "an empty host names no address") }
        if isNumeric(host) { return [host] }
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, nil, &hints, &list)
        guard status == 0, let first = list else {
            throw ConfigurationError(message: "host '\(host)' does not resolve: \(String(cString: gai_strerror(status)))")
        }
        defer { freeaddrinfo(first) }
        var addresses: [String] = []
        var node: UnsafeMutablePointer<addrinfo>? = first
        while let entry = node {
            if let text = numeric(entry.pointee.ai_addr), !addresses.contains(text) { addresses.append(text) }
            node = entry.pointee.ai_next
        }
        guard !addresses.isEmpty else { throw ConfigurationError(message: "host '\(host)' resolves to no IP address") }
        return addresses
    }

    /// Whether a numeric address is loopback: 127.0.0.0/8, ::1, or an IPv4-mapped 127.x.
    public static func isLoopback(_ address: String) -> Bool {
        var v4 = in_addr()
        if inet_pton(AF_INET, address, &v4) == 1 {
            return UInt32(bigEndian: v4.s_addr) >> 24 == 127
        }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, address, &v6) == 1 else { return false }
        let bytes = withUnsafeBytes(of: v6) { Array($0) }
        if bytes[0..<15].allSatisfy({ $0 == 0 }), bytes[15] == 1 { return true }
        let mapped = bytes[0..<10].allSatisfy { $0 == 0 } && bytes[10] == 0xFF && bytes[11] == 0xFF
        return mapped && bytes[12] == 127
    }

    static func isNumeric(_ host: String) -> Bool {
        var v4 = in_addr()
        var v6 = in6_addr()
        return inet_pton(AF_INET, host, &v4) == 1 || inet_pton(AF_INET6, host, &v6) == 1
    }

    static func numeric(_ address: UnsafeMutablePointer<sockaddr>?) -> String? {
        guard let address else { return nil }
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        switch Int32(address.pointee.sa_family) {
        case AF_INET:
            return address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { v4 in
                var raw = v4.pointee.sin_addr
                return buffer.withUnsafeMutableBufferPointer { out in
                    inet_ntop(AF_INET, &raw, out.baseAddress, socklen_t(out.count)).map { String(cString: $0) }
                }
            }
        case AF_INET6:
            return address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { v6 in
                var raw = v6.pointee.sin6_addr
                return buffer.withUnsafeMutableBufferPointer { out in
                    inet_ntop(AF_INET6, &raw, out.baseAddress, socklen_t(out.count)).map { String(cString: $0) }
                }
            }
        default:
            return nil
        }
    }
}
