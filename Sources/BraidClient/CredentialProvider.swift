import Foundation

/// Supplies the bearer token of the signed-in user (`identity.mode: jwt`) for each request.
public protocol CredentialProvider: Sendable {
    /// The token to send, or nil to send none (a signed-out user).
    /// - Parameter refused: the token the gateway has just refused as `invalid_token` (expired
    ///   early, revoked, rotated keys), so that the provider fetches a new one instead of
    ///   returning it again; nil on an ordinary request.
    func token(refusing refused: String?) async throws -> String?
}

/// One token for the client's lifetime: for tests, and for tokens an app swaps by making a new
/// client.
public struct StaticCredential: CredentialProvider {
    public let value: String

    public init(_ value: String) { self.value = value }

    public func token(refusing refused: String?) async throws -> String? { value }
}

/// Fetches a token through the app's own sign-in code and reuses it until shortly before its
/// `exp`. Concurrent requests share one fetch, and a token the gateway refuses is fetched
/// anew once.
public actor RefreshingCredential: CredentialProvider {
    private let fetch: @Sendable () async throws -> String
    private let leeway: Duration
    private var current: (token: String, expires: Date?)?
    private var inFlight: Task<String, any Error>?

    /// - Parameters:
    ///   - leeway: how long before `exp` a token is replaced, so that it does not expire on the
    ///     way (and a little clock skew between the app and the gateway does not matter).
    ///   - fetch: returns a fresh token (a JWT; one without a readable `exp` is kept until the
    ///     gateway refuses it).
    public init(leeway: Duration = .seconds(30), fetch: @escaping @Sendable () async throws -> String) {
        self.fetch = fetch
        self.leeway = leeway
    }

    public func token(refusing refused: String?) async throws -> String? {
        if let current, current.token != refused, !Self.isStale(current.expires, leeway: leeway) { return current.token }
        if let inFlight { return try await inFlight.value }
        let task = Task { try await fetch() }
        inFlight = task
        defer { inFlight = nil }
        let token = try await task.value
        current = (token, JWTClaims.expiry(of: token))
        return token
    }

    static func isStale(_ expires: Date?, leeway: Duration, now: Date = Date()) -> Bool {
        guard let expires else { return false }
        return expires.timeIntervalSince(now) <= Double(leeway.components.seconds)
    }
}

/// Reads a JWT's `exp` without verifying it: the client only needs to know when to ask for a
/// new token; the gateway verifies.
enum JWTClaims {
    static func expiry(of token: String) -> Date? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else { return nil }
        var base64 = parts[1].replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        guard let data = Data(base64Encoded: base64),
            let claims = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let exp = claims["exp"] as? Double
        else { return nil }
        return Date(timeIntervalSince1970: exp)
    }
}
