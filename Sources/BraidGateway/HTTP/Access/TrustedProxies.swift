import BraidCore
import Foundation
import HTTPTypes
import Hummingbird

/// The proxies whose forwarding headers are believed (`gateway.trusted_proxies`). A client
/// can write any `X-Forwarded-For` it likes; only what a trusted proxy appended means anything.
public struct TrustedProxies: Sendable {
    let ranges: [AddressRange]

    public init(_ ranges: [AddressRange]) {
        self.ranges = ranges
    }

    public static let none = TrustedProxies([])

    func isTrusted(_ address: String?) -> Bool {
        guard let address else { return false }
        return ranges.contains { $0.contains(address) }
    }

    /// The client's address: the peer itself, unless the peer is a trusted proxy; then the
    /// right-most `X-Forwarded-For` entry that is not a trusted proxy (each proxy appends the
    /// address it saw, so entries left of that one are the client's own words).
    public func client(peer: String?, forwardedFor: [String]) -> String? {
        guard isTrusted(peer) else { return peer }
        let hops = forwardedFor.flatMap { $0.split(separator: ",") }.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        var client = peer
        for hop in hops.reversed() {
            client = hop
            guard isTrusted(hop) else { break }
        }
        return client
    }

    /// Whether the request reached the first proxy over TLS: `X-Forwarded-Proto: https`, from
    /// a trusted proxy only.
    public func forwardedHTTPS(peer: String?, forwardedProto: String?) -> Bool {
        guard isTrusted(peer), let proto = forwardedProto?.split(separator: ",").first else { return false }
        return proto.trimmingCharacters(in: .whitespaces).lowercased() == "https"
    }

    func client(of request: Request, context: GatewayRequestContext) -> String? {
        client(peer: context.peerAddress, forwardedFor: request.headers[values: .xForwardedFor])
    }
}

extension HTTPField.Name {
    static let xForwardedFor = Self("X-Forwarded-For")!
    static let xForwardedProto = Self("X-Forwarded-Proto")!
}
