import BraidCore
import Foundation

/// A compact JWS (`header.payload.signature`) read strictly before any key is touched.
///
/// Braid checks what jwt-kit's `verify` does not, or decides differently:
/// - the header and the claims are JSON objects that name no member twice (which of two `sub`
///   values counts would otherwise depend on the reader);
/// - `alg` is present and a string; `kid`, when present, a string;
/// - `crit` is refused: Braid understands no header extension, and RFC 7515 §4.1.11 says a
///   token whose critical extensions are not understood is invalid.
struct TokenHeader: Sendable, Equatable {
    var alg: String
    var kid: String?

    /// Reads the header of `token` and checks the shape of its claims.
    static func read(_ token: String) throws(GatewayError) -> TokenHeader {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerBytes = base64URL(parts[0]), let payloadBytes = base64URL(parts[1]) else {
            throw JWTVerifier.rejected("malformed", "the token is not a JWT")
        }
        let header: JSONValue
        let claims: JSONValue
        do {
            header = try JSONValue.parseRefusingDuplicateKeys(headerBytes)
            claims = try JSONValue.parseRefusingDuplicateKeys(payloadBytes)
        } catch {
            throw JWTVerifier.rejected("malformed", "the token's header or claims are not strict JSON: \(error.reason)")
        }
        guard case .object = claims else { throw JWTVerifier.rejected("malformed", "the token's claims are not a JSON object") }
        guard case .object(let fields) = header, case .string(let alg)? = fields["alg"] else {
            throw JWTVerifier.rejected("malformed", "the token's header names no algorithm")
        }
        if fields["crit"] != nil { throw JWTVerifier.rejected("crit", "the token's header has critical extensions (crit) Braid does not understand") }
        var kid: String?
        switch fields["kid"] {
        case nil: break
        case .string(let value)?: kid = value
        default: throw JWTVerifier.rejected("malformed", "the token's key id (kid) is not a string")
        }
        return TokenHeader(alg: alg, kid: kid)
    }

    /// base64url without padding, as JWS segments are; padding is tolerated.
    static func base64URL(_ text: Substring) -> Data? {
        var trimmed = text
        while trimmed.last == "=" { trimmed.removeLast() }
        return Base64URL.decode(String(trimmed)).map { Data($0) }
    }
}
