import BraidCore
import Crypto
import HTTPTypes
import Hummingbird

/// `identity.mode: proxy`: a proxy in front of the gateway authenticated the user and names
/// them in `user_header`; it proves it is that proxy with the shared secret in
/// `secret_header`. The proxy must drop both headers from what clients send.
public struct ProxyCredential: Sendable, RedactedDescription {
    let userHeader: HTTPField.Name
    let secretHeader: HTTPField.Name
    let secretDigest: SHA256.Digest

    /// Nil when a header name is not a valid field name (the configuration refuses those).
    public init?(userHeader: String, secretHeader: String, secret: [UInt8]) {
        guard let user = HTTPField.Name(userHeader), let proof = HTTPField.Name(secretHeader) else { return nil }
        self.userHeader = user
        self.secretHeader = proof
        secretDigest = SHA256.hash(data: secret)
    }

    func user(_ headers: HTTPFields) throws(GatewayError) -> String {
        // Digests compared, so the time taken says nothing about how much of a guess was right.
        guard let proof = headers[secretHeader], SHA256.hash(data: Array(proof.utf8)) == secretDigest else {
            throw .unauthenticated("this route needs an authenticated user, named by the trusted proxy")
        }
        guard let user = headers[userHeader], !user.isEmpty else {
            throw .unauthenticated("the trusted proxy named no user")
        }
        return user
    }
}
