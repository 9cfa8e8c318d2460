/// An error reply from the Redis server (WRONGTYPE, NOSCRIPT, …): the command reached
/// Redis and was refused. Retrying the same command will fail the same way.
public struct RedisServerError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The whole error line, e.g. `WRONGTYPE Operation against a key holding the wrong kind of value`.
    public let message: String

    public init(message: String) {
        self.message = message
    }

    /// The error's first word, e.g. `WRONGTYPE`, `NOSCRIPT`, `ERR`.
    public var code: String { String(message.prefix { $0 != " " }) }
    public var description: String { "Redis: \(message)" }
}

/// Redis could not be reached or the connection failed: the command's fate is unknown
/// (for `.timeout` and `.closed`) or it was never sent (`.unavailable`). Callers may retry
/// idempotent commands; the client reconnects by itself.
public struct RedisConnectionError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Kind: String, Sendable, Hashable {
        /// No connection is up right now; the command was not sent.
        case unavailable
        /// The connection closed before the reply arrived.
        case closed
        /// No reply within the command's deadline.
        case timeout
        /// The server sent bytes that are not RESP.
        case protocolError
        /// Connecting, AUTH or SELECT failed.
        case connectFailed
        /// The client has been shut down.
        case shutdown
        /// TLS could not be set up, or the port speaks the other protocol (a TLS port on a
        /// `redis://` URL, a plaintext one on `rediss://`); ``tlsFailure`` says which. Such
        /// a problem does not go away by retrying: fix the configuration.
        case tls
    }

    /// What went wrong with TLS, for ``Kind/tls`` errors.
    public enum TLSFailure: String, Sendable, Hashable {
        /// The server's certificate is not signed by a CA in the configured CA file (or, without
        /// one, by a CA the system trusts): the wrong CA file, or the wrong server.
        case untrustedCertificate
        /// The server presents a self-signed certificate that is not in the CA file.
        case selfSignedCertificate
        /// The server's certificate has expired or is not valid yet.
        case expiredCertificate
        /// The server's certificate is not issued for the name the client verifies.
        case nameMismatch
        /// A `rediss://` URL points at a plaintext port.
        case notTLSServer
        /// A `redis://` URL points at a TLS port.
        case tlsServer
        /// The server requires a client certificate and none is configured.
        case clientCertificateRequired
        /// The server refused the client certificate (its CA does not trust it).
        case clientCertificateRejected
        /// The CA, certificate or key file cannot be read or does not fit.
        case invalidConfiguration
        /// Any other handshake failure.
        case handshakeFailed
    }

    public let kind: Kind
    public let message: String
    /// Set for ``Kind/tls`` errors.
    public let tlsFailure: TLSFailure?

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
        self.tlsFailure = nil
    }

    public init(tls failure: TLSFailure, _ message: String) {
        self.kind = .tls
        self.message = message
        self.tlsFailure = failure
    }

    public var description: String {
        "Redis connection (\(tlsFailure.map { "tls: \($0.rawValue)" } ?? kind.rawValue)): \(message)"
    }
}

/// A reply of a shape the typed command did not expect.
public struct RedisUnexpectedReplyError: Error, Sendable, CustomStringConvertible {
    public let command: String
    public let reply: RESPValue
    public var description: String { "unexpected reply to \(command): \(reply)" }

    public init(command: String, reply: RESPValue) {
        self.command = command
        self.reply = reply
    }
}
