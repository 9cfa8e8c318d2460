import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// An IP address or CIDR range (`10.0.0.0/8`, `2001:db8::/32`, `192.0.2.7`): the proxies whose
/// forwarding headers a gateway believes. IPv4-mapped IPv6 addresses (`::ffff:10.1.2.3`)
/// match IPv4 ranges, as a dual-stack socket reports IPv4 peers that way.
public struct AddressRange: Sendable, Hashable, CustomStringConvertible {
    /// 4 or 16 bytes, with the bits past the prefix cleared.
    let network: [UInt8]
    let prefixLength: Int

    public init?(_ text: String) {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let bytes = Self.bytes(of: String(parts[0])) else { return nil }
        let bits = bytes.count * 8
        let prefix: Int
        if parts.count == 2 {
            guard let value = Int(parts[1]), (0...bits).contains(value), parts[1].allSatisfy(\.isNumber) else { return nil }
            prefix = value
        } else {
            prefix = bits
        }
        network = Self.masked(bytes, prefix)
        prefixLength = prefix
    }

    public var description: String {
        let family = network.count == 4 ? AF_INET : AF_INET6
        var buffer = [CChar](repeating: 0, count: 64)
        let text = network.withUnsafeBytes { raw in
            buffer.withUnsafeMutableBufferPointer { out in
                inet_ntop(family, raw.baseAddress, out.baseAddress, socklen_t(out.count)).map { String(cString: $0) }
            }
        }
        return "\(text ?? "?")/\(prefixLength)"
    }

    /// Whether the numeric address `address` is in this range.
    public func contains(_ address: String) -> Bool {
        guard var bytes = Self.bytes(of: address) else { return false }
        if bytes.count == 16, network.count == 4, bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xFF, bytes[11] == 0xFF {
            bytes = Array(bytes[12...])
        }
        guard bytes.count == network.count else { return false }
        return Self.masked(bytes, prefixLength) == network
    }

    /// The 4 or 16 bytes of a numeric IPv4 or IPv6 address.
    /// The loopback ranges: 127.0.0.0/8 (IPv4-mapped too) and ::1.
    public static let loopback = [AddressRange("127.0.0.0/8")!, AddressRange("::1")!]

    /// Whether `address` is a loopback address.
    public static func isLoopback(_ address: String) -> Bool {
        loopback.contains { $0.contains(address) }
    }

    static func bytes(of address: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, address, &v4) == 1 { return withUnsafeBytes(of: v4) { Array($0) } }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, address, &v6) == 1 { return withUnsafeBytes(of: v6) { Array($0) } }
        return nil
    }

    static func masked(_ bytes: [UInt8], _ prefix: Int) -> [UInt8] {
        bytes.enumerated().map { index, byte in
            let kept = max(0, min(8, prefix - index * 8))
            return kept == 8 ? byte : byte & ~(0xFF >> UInt8(kept))
        }
    }
}
